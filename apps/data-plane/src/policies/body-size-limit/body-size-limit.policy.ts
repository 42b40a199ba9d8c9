import type { Exchange } from '../../engine/exchange';
import type { PolicyFactory } from '../../engine/policy';

/**
 * `proxy.maxBodySize`: a declared Content-Length over the limit gets 413 before any upstream
 * call; a chunked body is counted while it streams and cut at the limit (413 if the upstream has
 * not answered yet, otherwise the connection is closed).
 */
export const bodySizeLimitPolicy: PolicyFactory = {
  key: 'body-size-limit',
  scope: 'route',
  order: 50,
  // The limit is the table's (proxy.maxBodySize): one policy for every route.
  shareKey: () => '',
  create: (_route, env) => {
    const limit = env.settings.maxBodySize;
    return {
      onRequest(exchange) {
        const declared = exchange.req.headers['content-length'];
        if (declared !== undefined && Number(declared) > limit) return { kind: 'error', code: 'PAYLOAD_TOO_LARGE' };
        return undefined;
      },
      wrapUpstream: (next) => (exchange, done) => {
        next(exchange, done);
        // forward() attaches its body listener synchronously, so counting here never steals data.
        if (exchange.bufferedBody === undefined && exchange.req.headers['transfer-encoding'] !== undefined) countBody(exchange, limit);
      },
    };
  },
};

function countBody(exchange: Exchange, limit: number): void {
  let received = 0;
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received <= limit) return;
    exchange.req.off('data', onData);
    // Before the response head: 413; after it, the response is cut.
    exchange.upstream?.cancel('PAYLOAD_TOO_LARGE');
    if (exchange.res.headersSent) exchange.res.destroy();
  };
  exchange.req.on('data', onData);
}
