import { Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GatewayEventsModule } from '../gateway-events/gateway-events.module';
import { LeaseModule } from '../lease/lease.module';
import { RouteOperationsModule } from '../route-operations/route-operations.module';
import { SettingsModule } from '../settings/settings.module';
import { documentSettingsSection } from '../settings/settings-openapi';
import { SettingsSectionRegistry } from '../settings/settings-sections.registry';
import { CircuitBreakerAction } from './actions/circuit-breaker.action';
import { RestartPodAction } from './actions/restart-pod.action';
import { ScaleResourceAction } from './actions/scale-resource.action';
import { KubernetesClusterAdapter } from './kubernetes/kubernetes-cluster.adapter';
import { ExecutionApprovals } from './execution-approvals.service';
import { ExecutionLimits } from './execution-limits.service';
import { ExecutionRecovery } from './execution-recovery.service';
import { ExecutionRunner } from './execution-runner.service';
import { ExecutionScheduler } from './execution-scheduler.service';
import { RUNBOOK_ACTION_UNITS, type RunbookAction } from './runbook-action';
import { RunbookActionRegistry } from './runbook-action.registry';
import { RunbookEngine } from './runbook-engine.service';
import { RunbookExecutionEntity } from './runbook-execution.entity';
import { RunbookExecutionsController } from './runbook-executions.controller';
import { RunbookReads } from './runbook-reads.service';
import { RunbookWrites } from './runbook-writes.service';
import { RunbookEntity } from './runbook.entity';
import { RunbooksController } from './runbooks.controller';
import { RUNBOOKS_SETTINGS_SECTION } from './runbooks-settings.section';
import { RunbooksSettingsReader } from './runbooks-settings.reader';
import { RUNBOOKS_SETTINGS_SCHEMA } from './runbooks.openapi';

documentSettingsSection(RUNBOOKS_SETTINGS_SECTION.key, RUNBOOKS_SETTINGS_SCHEMA);

/** The action types: a new one is a provider here and an entry in the list, nothing else. */
const ACTION_UNITS = [CircuitBreakerAction, ScaleResourceAction, RestartPodAction];

/** Recovery runbooks (docs/runbooks.md): CRUD, the engine that matches events, approvals, limits, rollback. */
@Module({
  imports: [TypeOrmModule.forFeature([RunbookEntity, RunbookExecutionEntity]), SettingsModule, LeaseModule, GatewayEventsModule, RouteOperationsModule],
  controllers: [RunbooksController, RunbookExecutionsController],
  providers: [
    ...ACTION_UNITS,
    { provide: RUNBOOK_ACTION_UNITS, useFactory: (...units: RunbookAction[]) => units, inject: ACTION_UNITS },
    RunbookActionRegistry,
    KubernetesClusterAdapter,
    RunbooksSettingsReader,
    ExecutionLimits,
    ExecutionRunner,
    ExecutionRecovery,
    ExecutionApprovals,
    ExecutionScheduler,
    RunbookEngine,
    RunbookReads,
    RunbookWrites,
  ],
})
export class RunbooksModule implements OnModuleInit {
  constructor(private readonly sections: SettingsSectionRegistry) {}

  onModuleInit(): void {
    this.sections.register(RUNBOOKS_SETTINGS_SECTION);
  }
}
