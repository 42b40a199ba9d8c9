import { constants, createGzip } from 'node:zlib';
import type { Writable } from 'node:stream';
import type { Exchange } from '../engine/exchange';
import type { Logger, MetricsExposition } from '../engine/ports';
import { writeResponseHead } from '../engine/responses';
import { acceptsGzip } from './accept-encoding';

/**
 * Gzip level of a compressed scrape: the fastest. The text is label sets repeated line after line,
 * which even level 1 shrinks ~10x; higher levels cost CPU for a few percent (docs/data-plane.md).
 */
const GZIP_LEVEL = constants.Z_BEST_SPEED;

/**
 * Sends a scrape as it is written: each chunk goes to the socket (through gzip when the scraper
 * accepts it, as Prometheus does) and the next is written only once the socket (or gzip) takes
 * more, so a slow scraper holds back the writer instead of the whole text piling up in memory,
 * and proxied requests are served between chunks. Chunked transfer: the length is not known
 * before the end.
 */
export function sendExposition(exchange: Exchange, exposition: MetricsExposition, logger: Logger): void {
  const { res } = exchange;
  const gzip = acceptsGzip(exchange.req.headers['accept-encoding']);
  writeResponseHead(exchange, 200, {
    'content-type': exposition.contentType,
    'cache-control': 'no-store',
    vary: 'accept-encoding',
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  const { chunks } = exposition;
  if (exchange.method === 'HEAD') {
    chunks.return?.();
    res.end();
    return;
  }
  let sink: Writable = res;
  if (gzip) {
    const compressor = createGzip({ level: GZIP_LEVEL });
    compressor.on('error', (error) => {
      logger.error({ err: String(error) }, 'metrics compression failed');
      res.destroy();
    });
    compressor.pipe(res);
    sink = compressor;
  }
  let stopped = false;
  res.on('close', () => {
    // Finished or cut by the client: either way nothing more is written.
    stopped = true;
    chunks.return?.();
    if (sink !== res) sink.destroy();
  });
  const pump = (): void => {
    try {
      while (!stopped) {
        const next = chunks.next();
        if (next.done === true) {
          sink.end();
          return;
        }
        const chunk = next.value;
        if (!sink.write(chunk, () => exposition.recycle(chunk))) {
          sink.once('drain', pump);
          return;
        }
      }
    } catch (error) {
      // The head is sent: all that is left is to cut the response, so the scraper sees a failed scrape.
      logger.error({ err: String(error) }, 'metrics rendering failed');
      stopped = true;
      res.destroy();
    }
  };
  pump();
}
