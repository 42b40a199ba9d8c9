import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ClusterModule } from '../cluster/cluster.module';
import { ControlPlaneMetrics } from './control-plane-metrics.service';
import { DrainState } from './drain-state';
import { MetricsController } from './metrics.controller';
import { OpsController } from './ops.controller';
import { ReadinessService } from './readiness.service';

@Module({})
export class HealthModule {
  /** `serveOpsEndpoints`: the control-plane role; in one-process mode the data plane serves them. */
  static register(serveOpsEndpoints: boolean): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false }), ...(serveOpsEndpoints ? [ClusterModule] : [])],
      controllers: serveOpsEndpoints ? [OpsController, MetricsController] : [],
      providers: serveOpsEndpoints ? [ReadinessService, ControlPlaneMetrics, DrainState] : [ReadinessService, DrainState],
      exports: [ReadinessService, DrainState],
    };
  }
}
