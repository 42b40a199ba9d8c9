import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { API_VERSION, CONFIG_SCHEMA_VERSION } from '@gateway/route-model';
import { Public } from '../auth/auth.decorators';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { DrainState } from './drain-state';
import { OpsDocs } from './ops.openapi';
import { ReadinessService } from './readiness.service';

const startedAt = Date.now();

/**
 * Spec 4.2 shapes, served only in the control-plane role (in one-process mode the data plane
 * answers these and asks `readiness()` for the control plane's checks). Not under /api: no envelope.
 */
@ApiTags('ops')
@Public()
@Controller()
export class OpsController {
  constructor(
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    private readonly readiness: ReadinessService,
    private readonly drain: DrainState,
  ) {}

  @OpsDocs.version()
  @Get('version')
  version(): Record<string, unknown> {
    return { name: 'gateway', version: this.config.version, apiVersion: API_VERSION, configVersion: CONFIG_SCHEMA_VERSION, node: process.version, uptime: (Date.now() - startedAt) / 1000 };
  }

  @OpsDocs.health()
  @Get('health')
  health(): Record<string, unknown> {
    return { status: 'UP', timestamp: new Date().toISOString(), version: this.config.version };
  }

  @OpsDocs.health()
  @Get('health/live')
  live(): Record<string, unknown> {
    return this.health();
  }

  /** Kubernetes readiness probe: the process serves; unlike /health/ready it ignores Redis (docs/deployment.md). */
  @OpsDocs.serving()
  @Get('health/serving')
  serving(@Res({ passthrough: true }) res: Response): Record<string, unknown> {
    if (this.drain.draining) return this.draining(res);
    return this.health();
  }

  @OpsDocs.ready()
  @Get('health/ready')
  async ready(@Res({ passthrough: true }) res: Response): Promise<Record<string, unknown>> {
    if (this.drain.draining) return this.draining(res);
    const checks = await this.readiness.check();
    const up = Object.values(checks).every((status) => status === 'UP');
    res.status(up ? 200 : 503);
    return { status: up ? 'UP' : 'DOWN', checks, timestamp: new Date().toISOString() };
  }

  /** Both readiness probes of a stopping control plane. */
  private draining(res: Response): Record<string, unknown> {
    res.status(503);
    return { status: 'DOWN', draining: true, timestamp: new Date().toISOString() };
  }
}
