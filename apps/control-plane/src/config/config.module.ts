import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { MessageBus } from '@gateway/events';
import { OutboundAddressRule } from '@gateway/outbound-target';
import { CONTROL_PLANE_CONFIG, MESSAGE_BUS } from './config.tokens';
import type { ControlPlaneConfig } from './control-plane-config';

/**
 * Makes the boot-time config, the bus and the outbound-target rule (for every request made on an
 * admin's behalf: route tests, later webhooks) injectable everywhere.
 */
@Global()
@Module({})
export class ConfigModule {
  static register(config: ControlPlaneConfig, bus: MessageBus): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: CONTROL_PLANE_CONFIG, useValue: config },
        { provide: MESSAGE_BUS, useValue: bus },
        { provide: OutboundAddressRule, useValue: new OutboundAddressRule(config.outboundAllowCidrs) },
      ],
      exports: [CONTROL_PLANE_CONFIG, MESSAGE_BUS, OutboundAddressRule],
    };
  }
}
