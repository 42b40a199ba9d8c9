import type { IncomingMessage } from 'node:http';
import { GatewayError, isGatewayError } from './error-catalogue';
import type { Exchange } from './exchange';

/**
 * The innermost upstream call: sends the exchange's request to its route's upstream and resolves
 * with the response once its head arrives. The request body streams from the client (or is
 * replayed from `bufferedBody`). Wrappers (timeouts, retries, breakers) cut it through
 * `exchange.upstreamRequest`.
 */
export function forward(exchange: Exchange): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const target = (exchange.route as NonNullable<Exchange['route']>).upstream;
    exchange.attempts += 1;
    const upstreamRequest = target.request({
      hostname: target.hostname,
      port: target.port,
      method: exchange.method,
      path: exchange.upstreamPath,
      headers: exchange.upstreamHeaders,
      agent: target.agent,
    });
    exchange.upstreamRequest = upstreamRequest;
    upstreamRequest.on('response', (response) => {
      exchange.upstreamResponse = response;
      resolve(response);
    });
    upstreamRequest.on('error', (error) => {
      reject(isGatewayError(error) ? error : new GatewayError('UPSTREAM_ERROR', undefined, { cause: error }));
    });

    const req = exchange.req;
    if (exchange.bufferedBody !== undefined) {
      upstreamRequest.end(exchange.bufferedBody);
    } else if (req.headers['transfer-encoding'] === undefined && (req.headers['content-length'] === undefined || req.headers['content-length'] === '0')) {
      upstreamRequest.end();
    } else {
      req.pipe(upstreamRequest);
    }
  });
}
