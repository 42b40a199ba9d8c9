import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { runWithCorrelationId } from '@gateway/logging';

const logger = new Logger('HTTP');

/**
 * Every line logged while a request is handled carries its correlation id (set by
 * responseHeaders, which runs first). Then one line per management request once answered:
 * method, path (never the query string, which may carry secrets), status and duration; /api only.
 * Feeds `GET /api/logs` like every other line.
 */
export function requestLog(req: Request, res: Response, next: NextFunction): void {
  const correlationId = String(res.locals['correlationId'] ?? '');
  if (req.path !== '/api' && !req.path.startsWith('/api/')) return runWithCorrelationId(correlationId, next);
  const started = process.hrtime.bigint();
  res.once('finish', () => {
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
    const line = { msg: `${req.method} ${req.path} ${res.statusCode} ${durationMs.toFixed(1)}ms`, correlationId, method: req.method, path: req.path, status: res.statusCode, durationMs };
    if (res.statusCode >= 500) logger.error(line);
    else logger.log(line);
  });
  runWithCorrelationId(correlationId, next);
}
