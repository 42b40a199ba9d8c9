import { ServerResponse, type OutgoingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Exchange } from '../../engine/exchange';
import type { UpstreamCall } from '../../engine/policy';
import type { UpstreamResponse } from '../../engine/upstream-response';

/** A complete upstream answer, or undefined when the call failed, was cut or its body was too large. */
export type FetchOutcome = { readonly response: UpstreamResponse; readonly body: Buffer } | undefined;

const NO_BODY = Buffer.alloc(0);

/**
 * Sends a GET for what `client` asked on an exchange of its own, through the route's upstream
 * wrappers (breaker, retry, timeout), and reads the whole body, at most `maxBytes`. The client has
 * its answer already (a stale entry): this exchange has no client, so the client leaving does not
 * cut it, and nothing is written anywhere. `headers` are the client's upstream headers as the
 * request phase left them (header rules applied), with the revalidation conditionals.
 */
export function fetchInBackground(
  client: Exchange,
  call: UpstreamCall,
  headers: OutgoingHttpHeaders,
  maxBytes: number,
  done: (outcome: FetchOutcome, exchange: Exchange) => void,
): void {
  const req = client.req;
  // The response object only satisfies the exchange's shape: it is never attached to a socket.
  const exchange = new Exchange(req, new ServerResponse(req), 'GET', client.path, client.query, client.clientIp, performance.now());
  exchange.route = client.route;
  exchange.correlationId = client.correlationId;
  exchange.upstreamPath = client.upstreamPath;
  // A GET refresh sends no body, whatever the client's request framed.
  exchange.upstreamHeaders = { ...headers };
  delete exchange.upstreamHeaders['content-length'];
  delete exchange.upstreamHeaders['transfer-encoding'];
  exchange.bufferedBody = NO_BODY;
  let settled = false;
  const finish = (outcome: FetchOutcome): void => {
    if (settled) return;
    settled = true;
    done(outcome, exchange);
  };
  try {
    call(exchange, (error, response) => {
      if (error !== null || response === null) {
        finish(undefined);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const body = response.stream();
      body.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          response.destroy();
          finish(undefined);
        } else chunks.push(chunk);
      });
      body.once('end', () => finish(response.complete ? { response, body: Buffer.concat(chunks, size) } : undefined));
      body.once('error', () => finish(undefined));
      body.once('close', () => finish(undefined));
    });
  } catch {
    // A wrapper that throws costs the refresh, never the process.
    finish(undefined);
  }
}
