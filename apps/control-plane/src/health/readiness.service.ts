import { Injectable } from '@nestjs/common';
import { TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { ControlPlaneReadiness } from '../control-plane-options';

const CHECK_TIMEOUT_MS = 1500;

/** The control plane's dependencies, checked with @nestjs/terminus; feeds /health/ready. */
@Injectable()
export class ReadinessService {
  constructor(private readonly database: TypeOrmHealthIndicator) {}

  async check(): Promise<ControlPlaneReadiness> {
    const database = await this.database
      .pingCheck('database', { timeout: CHECK_TIMEOUT_MS })
      .then(() => 'UP' as const)
      .catch(() => 'DOWN' as const);
    return { database };
  }
}
