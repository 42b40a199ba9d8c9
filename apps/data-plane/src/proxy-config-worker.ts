// Worker thread of loadProxyConfigOffThread (proxy-config-source.ts): reads, parses and validates
// proxy.yml away from the event loop that serves requests. YAML parsing of a 10,000-route file
// takes the better part of a second; here it costs the server nothing but CPU.
import { createHash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { loadProxyConfig } from './proxy-config-source';
import type { ConfigWorkerMessage } from './proxy-config-worker-protocol';

/** Routes per message: small messages keep each one cheap for the main thread to receive. */
const ROUTES_PER_MESSAGE = 250;

/** A definition's identity: 128 bits of SHA-256 over its canonical JSON (schema key order). */
function fingerprintOf(json: string): string {
  return createHash('sha256').update(json).digest('base64url').slice(0, 22);
}

async function main(filePath: string): Promise<void> {
  const port = parentPort;
  if (port === null) return;
  const send = (message: ConfigWorkerMessage): void => port.postMessage(message);
  const result = await loadProxyConfig(filePath);
  if (!result.ok) {
    send({ kind: 'failed', errors: result.errors });
    return;
  }
  const { routes, ...rest } = result.config;
  send({ kind: 'config', config: { ...rest, routes: [] }, routes: routes.length });
  for (let start = 0; start < routes.length; start += ROUTES_PER_MESSAGE) {
    const json = routes.slice(start, start + ROUTES_PER_MESSAGE).map((route) => JSON.stringify(route));
    send({ kind: 'routes', json, fingerprints: json.map(fingerprintOf) });
  }
  send({ kind: 'done' });
}

main((workerData as { filePath: string }).filePath).catch((error: unknown) => {
  parentPort?.postMessage({ kind: 'failed', errors: [{ field: '(reload)', code: 'RELOAD_FAILED', message: String(error) }] } satisfies ConfigWorkerMessage);
});
