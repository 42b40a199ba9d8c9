import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { ControlPlaneMetrics } from './control-plane-metrics.service';

/** GET /metrics in the control-plane role (in one-process mode the data plane serves it). */
@Public()
@Controller()
export class MetricsController {
  constructor(private readonly metrics: ControlPlaneMetrics) {}

  @Get('metrics')
  async scrape(@Res({ passthrough: true }) res: Response): Promise<string> {
    res.type(this.metrics.contentType);
    return this.metrics.metrics();
  }
}
