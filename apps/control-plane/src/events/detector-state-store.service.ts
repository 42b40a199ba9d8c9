import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import type { EngineState } from '@gateway/events';
import { queryRows } from '../lease/lease-sql';
import type { LeaseGrant } from '../lease/lease.service';
import { DetectorStateEntity } from './detector-state.entity';

const STATE_ROW = 'engine';

export interface StoredDetectorState {
  /** Parsed JSON; the engine checks it (a detector whose part is unusable starts over). */
  state: unknown;
  evaluatedUntilMs: number;
}

/** The detectors' persisted state: one row, written only under the detectors' lease (fenced). */
@Injectable()
export class DetectorStateStore {
  constructor(
    @InjectRepository(DetectorStateEntity) private readonly states: Repository<DetectorStateEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async load(): Promise<StoredDetectorState | undefined> {
    const row = await this.states.findOneBy({ name: STATE_ROW });
    if (row === null) return undefined;
    let state: unknown;
    try {
      state = JSON.parse(row.state);
    } catch {
      state = undefined;
    }
    return { state, evaluatedUntilMs: row.evaluatedUntilMs };
  }

  /**
   * Writes the state if `grant` is still the live lease, checked in the write itself: a holder that
   * lost its lease (paused, then woke up) cannot overwrite the new holder's state (docs/control-plane.md,
   * Leases). False when the lease moved on.
   */
  async save(grant: LeaseGrant, state: EngineState, evaluatedUntilMs: number): Promise<boolean> {
    const written = await queryRows<{ name: string }>(
      this.dataSource,
      `INSERT INTO "detector_state" ("name", "state", "evaluated_until_ms", "lease_token")
       SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM "leases" WHERE "name" = $5 AND "holder" = $6 AND "token" = $7)
       ON CONFLICT ("name") DO UPDATE SET "state" = excluded."state", "evaluated_until_ms" = excluded."evaluated_until_ms", "lease_token" = excluded."lease_token"
       RETURNING "name"`,
      [STATE_ROW, JSON.stringify(state), evaluatedUntilMs, grant.token, grant.name, grant.holder, grant.token],
    );
    return written.length > 0;
  }
}
