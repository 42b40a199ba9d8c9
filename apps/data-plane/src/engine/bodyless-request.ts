import type { IncomingMessage } from 'node:http';

/**
 * Reads once, as the request arrives, an HTTP/1 request that has no body (no Transfer-Encoding, no
 * Content-Length or `0`): it holds nothing, and a request stream somebody has read is one node does
 * not schedule its `_dump` for when the response finishes (`resOnFinish`: "the user never called
 * req.read()"). That dump resumed the empty stream to its end on every request: three
 * `process.nextTick` turns (resume, 'end', 'close') and the stream's flowing machinery, ~3.5k
 * instructions a request under callgrind, many times that when node's tick objects are defined
 * through V8's runtime (tools/bench/README.md, Results, h-srv100). The stream then never emits
 * 'end' or 'close': nothing in the gateway listens to them on a request without a body (the body
 * paths, forward.ts and the retry and body-size policies, only run where there is one), and the
 * object goes with the exchange. Bodies, HTTP/2 streams and upgrades are left alone.
 */
export function readBodylessRequest(req: IncomingMessage): void {
  if (req.httpVersionMajor !== 1) return;
  const headers = req.headers;
  // An upgrade's bytes after the head belong to the new protocol, not to this stream.
  if (headers['transfer-encoding'] !== undefined || headers.upgrade !== undefined) return;
  const length = headers['content-length'];
  if (length !== undefined && length !== '0') return;
  req.read();
}
