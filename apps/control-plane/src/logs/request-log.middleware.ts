import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

const logger = new Logger('HTTP');

/**
 * One line per management request once answered: method, path (never the query string, which may
 * carry secrets), status, duration and correlation id; /api only. Feeds `GET /api/logs` like every other line.
 */
export function requestLog(req: Request, res: Response, next: NextFunction): void {
  if (req.path !== '/api' && !req.path.startsWith('/api/')) return next();
  const started = process.hrtime.bigint();
  res.once('finish', () => {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    const line = `${req.method} ${req.path} ${res.statusCode} ${durationMs.toFixed(1)}ms correlationId=${String(res.locals['correlationId'] ?? '-')}`;
    if (res.statusCode >= 500) logger.error(line);
    else logger.log(line);
  });
  next();
}
