import type { NextFunction, Request, Response } from 'express';
import { generateCorrelationId, isAcceptableCorrelationId } from '@gateway/correlation-id';
import { API_VERSION, CONFIG_SCHEMA_VERSION } from '@gateway/route-model';

/**
 * Spec 9.2 on every response of the control plane (errors and 404s included): the version headers
 * and the correlation id, echoed when the client's is acceptable (decision 17), the same rule and
 * format as the data plane's. Registered before anything that can fail (body parsing, routing).
 */
export function responseHeaders(req: Request, res: Response, next: NextFunction): void {
  const supplied = req.headers['x-correlation-id'];
  const correlationId = isAcceptableCorrelationId(supplied) ? supplied : generateCorrelationId();
  res.locals['correlationId'] = correlationId;
  res.setHeader('X-API-Version', API_VERSION);
  res.setHeader('X-Config-Version', CONFIG_SCHEMA_VERSION);
  res.setHeader('X-Correlation-ID', correlationId);
  next();
}
