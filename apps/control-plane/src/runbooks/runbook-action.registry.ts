import { Inject, Injectable } from '@nestjs/common';
import { RUNBOOK_ACTION_UNITS, type RunbookAction } from './runbook-action';

/** The action types by name; the engine and the validator look units up here and nowhere else. */
@Injectable()
export class RunbookActionRegistry {
  readonly units: ReadonlyMap<string, RunbookAction>;

  constructor(@Inject(RUNBOOK_ACTION_UNITS) units: RunbookAction[]) {
    this.units = new Map(units.map((unit) => [unit.type, unit]));
  }

  get(type: string): RunbookAction | undefined {
    return this.units.get(type);
  }
}
