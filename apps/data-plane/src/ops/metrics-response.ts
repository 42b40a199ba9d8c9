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
 * accepts it, as Prometheus does) and the next is written only once the socket (or gzip) has
 * taken the last, so a slow scraper holds back the writer instead of the whole text piling up in
 * memory, and a scrape holds two or three chunks whatever its size. Chunked transfer: the length
 * is not known before the end.
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
  // The next chunk is written only once the last one is out of our hands: on its callback (it is
  // then given back to the writer, whose next chunk reuses its memory) or, when the sink's buffer
  // is full, on 'drain'. A loop that went on while write() returned true was wrong on loopback
  // and fast links: the kernel takes every chunk at once, each callback waits for the loop to
  // end, and no chunk came back until the whole scrape (25 MB at 10,000 routes) had been freshly
  // allocated: page faults, malloc and the GC's external-memory scavenges were over a third of
  // the CPU of a scrape (issue 19, docs/data-plane.md "/metrics cardinality").
  const pump = (): void => {
    if (stopped) return;
    try {
      const next = chunks.next();
      if (next.done === true) {
        sink.end();
        return;
      }
      const chunk = next.value;
      const more = sink.write(chunk, (error) => {
        exposition.recycle(chunk);
        // A failed write is followed by 'close', which stops the scrape.
        if (more && error == null) pump();
      });
      if (!more) sink.once('drain', pump);
    } catch (error) {
      // The head is sent: all that is left is to cut the response, so the scraper sees a failed scrape.
      logger.error({ err: String(error) }, 'metrics rendering failed');
      stopped = true;
      res.destroy();
    }
  };
  pump();
}
