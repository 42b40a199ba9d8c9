import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpSnapshotFetcher } from './http-snapshot-fetcher';

async function server(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const s = http.createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      }),
  };
}

test('GET <base path>/internal/cluster/snapshot with the bearer token; the parsed body comes back', async () => {
  const seen: Array<{ url?: string; auth?: string }> = [];
  const s = await server((req, res) => {
    seen.push({ url: req.url, auth: req.headers.authorization });
    res.setHeader('content-type', 'application/json');
    res.end('{"version":3,"createdAt":"2026-01-01T00:00:00.000Z","routes":[],"upstreams":[]}');
  });
  try {
    const snapshot = await createHttpSnapshotFetcher(`${s.url}/cp/`, 'tok')();
    assert.equal(snapshot.version, 3);
    assert.deepEqual(seen, [{ url: '/cp/internal/cluster/snapshot', auth: 'Bearer tok' }]);
  } finally {
    await s.close();
  }
});

test('bounded: a body over the limit, a server that never answers, a body that is not JSON, a 404', async () => {
  const s = await server((req, res) => {
    if (req.url?.startsWith('/big')) res.end(JSON.stringify({ pad: 'x'.repeat(5000) }));
    else if (req.url?.startsWith('/silent')) res.write('{');
    else if (req.url?.startsWith('/text')) res.end('hello');
    else res.writeHead(404).end();
  });
  try {
    await assert.rejects(createHttpSnapshotFetcher(`${s.url}/big`, 't', { maxBodyBytes: 1000 })(), /larger than 1000 bytes/);
    await assert.rejects(createHttpSnapshotFetcher(`${s.url}/silent`, 't', { responseTimeoutMs: 100 })(), /no complete answer/);
    await assert.rejects(createHttpSnapshotFetcher(`${s.url}/text`, 't')(), /not JSON/);
    await assert.rejects(createHttpSnapshotFetcher(s.url, 't')(), /404.*CLUSTER_TOKEN/);
  } finally {
    await s.close();
  }
});
