import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';
import type { NextFunction, Request, Response } from 'express';

/**
 * Spec 8: browsers may call the management API only from ALLOWED_ORIGINS (default: local
 * development origins) and the origins added in settings (`general.allowedOrigins`). A refused origin gets no Access-Control-Allow-Origin, so the browser
 * withholds the response; the request itself is still answered (CORS is not authentication).
 * Tokens travel in the Authorization header, not cookies: no credentials mode.
 */
export function corsOptions(isAllowed: (origin: string) => boolean): CorsOptions {
  return {
    // Asked on every request: the allowed origins follow settings without a restart.
    origin: (origin, callback) => callback(null, origin !== undefined && isAllowed(origin)),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Correlation-ID'],
    exposedHeaders: ['X-Correlation-ID', 'X-API-Version', 'X-Config-Version', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'],
    credentials: false,
    maxAge: 600,
    optionsSuccessStatus: 204,
  };
}

/**
 * Runs after the CORS middleware, which answers the preflights of allowed origins itself. A
 * preflight from a refused origin ends here too, 204 without any Access-Control-* header (the
 * browser then blocks the real request), rather than reaching the guards and answering 401.
 */
export function endRefusedPreflight(req: Request, res: Response, next: NextFunction): void {
  if (req.method === 'OPTIONS' && req.headers['origin'] !== undefined && req.headers['access-control-request-method'] !== undefined) {
    res.setHeader('Vary', 'Origin');
    res.status(204).end();
    return;
  }
  next();
}
