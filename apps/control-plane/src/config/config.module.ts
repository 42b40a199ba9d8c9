import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { MessageBus } from '@gateway/events';
import { CONTROL_PLANE_CONFIG, MESSAGE_BUS } from './config.tokens';
import type { ControlPlaneConfig } from './control-plane-config';

/** Makes the boot-time config and the bus injectable everywhere. */
@Global()
@Module({})
export class ConfigModule {
  static register(config: ControlPlaneConfig, bus: MessageBus): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: CONTROL_PLANE_CONFIG, useValue: config },
        { provide: MESSAGE_BUS, useValue: bus },
      ],
      exports: [CONTROL_PLANE_CONFIG, MESSAGE_BUS],
    };
  }
}
