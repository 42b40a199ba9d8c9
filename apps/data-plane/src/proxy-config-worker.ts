// Worker thread of loadProxyConfigOffThread (proxy-config-source.ts): reads, parses and validates
// proxy.yml away from the event loop that serves requests. YAML parsing of a 10,000-route file
// takes the better part of a second; here it costs the server nothing but CPU.
import { parentPort, workerData } from 'node:worker_threads';
import type { Route } from '@gateway/route-model';
import { loadProxyConfig } from './proxy-config-source';
import type { ConfigWorkerMessage, RouteRecords } from './proxy-config-worker-protocol';
import { routeFingerprint } from './route-fingerprint';
import { lowerThisThreadPriority } from './thread-priority';

/** The routes as one buffer of fingerprinted, id-prefixed JSON records (see RouteRecords). */
function routeRecords(routes: readonly Route[]): RouteRecords {
  const jsonStarts = new Uint32Array(routes.length);
  const ends = new Uint32Array(routes.length);
  const texts: string[] = [];
  let end = 0;
  routes.forEach((route, i) => {
    const json = JSON.stringify(route);
    const head = `${routeFingerprint(json)}${route.id}`;
    texts.push(head, json);
    end += Buffer.byteLength(head);
    jsonStarts[i] = end;
    end += Buffer.byteLength(json);
    ends[i] = end;
  });
  // TextEncoder gives a buffer of its own (Buffer.from may hand out a slice of a shared pool), so it can be transferred.
  return { bytes: new TextEncoder().encode(texts.join('')), jsonStarts, ends };
}

async function main(filePath: string): Promise<void> {
  const port = parentPort;
  if (port === null) return;
  // Parsing competes with the thread that serves requests for the same cores: it yields to it.
  lowerThisThreadPriority();
  const result = await loadProxyConfig(filePath);
  if (!result.ok) {
    port.postMessage({ kind: 'failed', errors: result.errors } satisfies ConfigWorkerMessage);
    return;
  }
  const { routes, ...rest } = result.config;
  port.postMessage({ kind: 'config', config: { ...rest, routes: [] }, routes: routes.length } satisfies ConfigWorkerMessage);
  const records = routeRecords(routes);
  port.postMessage({ kind: 'routes', records } satisfies ConfigWorkerMessage, [records.bytes.buffer as ArrayBuffer, records.jsonStarts.buffer as ArrayBuffer, records.ends.buffer as ArrayBuffer]);
  port.postMessage({ kind: 'done' } satisfies ConfigWorkerMessage);
}

main((workerData as { filePath: string }).filePath).catch((error: unknown) => {
  parentPort?.postMessage({ kind: 'failed', errors: [{ field: '(reload)', code: 'RELOAD_FAILED', message: String(error) }] } satisfies ConfigWorkerMessage);
});
