import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { ControlPlaneMetrics } from './control-plane-metrics.service';
import { OpsDocs } from './ops.openapi';

/** GET /metrics in the control-plane role (in one-process mode the data plane serves it). */
@Public()
@Controller()
export class MetricsController {
  constructor(private readonly metrics: ControlPlaneMetrics) {}

  @Get('metrics')
  @OpsDocs.metrics()
  async scrape(@Res({ passthrough: true }) res: Response): Promise<string> {
    res.type(this.metrics.contentType);
    return this.metrics.metrics();
  }
}
