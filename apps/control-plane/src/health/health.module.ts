import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { OpsController } from './ops.controller';
import { ReadinessService } from './readiness.service';

@Module({})
export class HealthModule {
  /** `serveOpsEndpoints`: the control-plane role; in one-process mode the data plane serves them. */
  static register(serveOpsEndpoints: boolean): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: serveOpsEndpoints ? [OpsController] : [],
      providers: [ReadinessService],
      exports: [ReadinessService],
    };
  }
}
