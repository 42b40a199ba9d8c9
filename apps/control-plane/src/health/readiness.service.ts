import { Inject, Injectable } from '@nestjs/common';
import { TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { MessageBus } from '@gateway/events';
import { MESSAGE_BUS } from '../config/config.tokens';
import type { ControlPlaneReadiness } from '../control-plane-options';

const CHECK_TIMEOUT_MS = 1500;

/** The control plane's dependencies: the database (@nestjs/terminus ping) and Redis when configured. */
@Injectable()
export class ReadinessService {
  constructor(
    private readonly database: TypeOrmHealthIndicator,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
  ) {}

  async check(): Promise<ControlPlaneReadiness> {
    const [database, redis] = await Promise.all([
      this.database
        .pingCheck('database', { timeout: CHECK_TIMEOUT_MS })
        .then(() => 'UP' as const)
        .catch(() => 'DOWN' as const),
      this.bus.ping === undefined ? undefined : this.bus.ping().then((up) => (up ? ('UP' as const) : ('DOWN' as const))),
    ]);
    return redis === undefined ? { database } : { database, redis };
  }
}
