// Worker thread of loadProxyConfigOffThread (proxy-config-source.ts, ReloadWorker): reads, parses
// and validates proxy.yml away from the event loop that serves requests, one file per request, for
// as long as reloads keep coming (the main thread ends it once idle). YAML parsing of a
// 10,000-route file takes the better part of a second; here it costs the server nothing but CPU.
import { parentPort } from 'node:worker_threads';
import type { Route } from '@gateway/route-model';
import { ELEMENT_SEPARATOR } from './engine/state-files';
import { loadProxyConfig } from './proxy-config-source';
import type { ConfigWorkerMessage, ConfigWorkerRequest, RouteRecords } from './proxy-config-worker-protocol';
import { routeFingerprint } from './route-fingerprint';
import { lowerThisThreadPriority } from './thread-priority';

/** The routes as two buffers: their JSON, joined as routes.snapshot.json writes them, and their fingerprinted ids (see RouteRecords). */
function routeRecords(routes: readonly Route[]): RouteRecords {
  const jsonStarts = new Uint32Array(routes.length);
  const ends = new Uint32Array(routes.length);
  const headEnds = new Uint32Array(routes.length);
  const texts: string[] = [];
  const heads: string[] = [];
  const separatorBytes = Buffer.byteLength(ELEMENT_SEPARATOR);
  let end = 0;
  let headEnd = 0;
  routes.forEach((route, i) => {
    const json = JSON.stringify(route);
    const head = `${routeFingerprint(json)}${route.id}`;
    heads.push(head);
    headEnd += Buffer.byteLength(head);
    headEnds[i] = headEnd;
    texts.push(json);
    if (i > 0) end += separatorBytes;
    jsonStarts[i] = end;
    end += Buffer.byteLength(json);
    ends[i] = end;
  });
  // TextEncoder gives a buffer of its own (Buffer.from may hand out a slice of a shared pool), so it can be transferred.
  const encoder = new TextEncoder();
  return { bytes: encoder.encode(texts.join(ELEMENT_SEPARATOR)), jsonStarts, ends, heads: encoder.encode(heads.join('')), headEnds };
}

async function read(port: NonNullable<typeof parentPort>, { read: id, filePath }: ConfigWorkerRequest): Promise<void> {
  const post = (message: ConfigWorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
  try {
    const result = await loadProxyConfig(filePath);
    if (!result.ok) {
      post({ read: id, kind: 'failed', errors: result.errors });
      return;
    }
    const { routes, ...rest } = result.config;
    post({ read: id, kind: 'config', config: { ...rest, routes: [] }, routes: routes.length });
    const records = routeRecords(routes);
    post({ read: id, kind: 'routes', records }, [records.bytes, records.jsonStarts, records.ends, records.heads, records.headEnds].map((array) => array.buffer as ArrayBuffer));
    post({ read: id, kind: 'done' });
  } catch (error) {
    post({ read: id, kind: 'failed', errors: [{ field: '(reload)', code: 'RELOAD_FAILED', message: String(error) }] });
  }
}

const port = parentPort;
if (port !== null) {
  // Parsing competes with the thread that serves requests for the same cores: it yields to it.
  lowerThisThreadPriority();
  // The main thread sends one request at a time and waits for its answer (ReloadWorker).
  port.on('message', (request: ConfigWorkerRequest) => void read(port, request));
}
