import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, request, startUpstream, type LoopbackUpstream } from '@gateway/testing';
import { start } from '../../start';
import type { RunningDataPlane } from '../../data-plane-options';

/** Two data planes in one process, as the control plane's cache-purge command reaches them. */
let upstream: LoopbackUpstream;
let planes: RunningDataPlane[] = [];
const dir = makeTempDir('cache-purge-');

before(async () => {
  upstream = await startUpstream();
  const config = path.join(dir.path, 'proxy.yml');
  writeFileSync(
    config,
    `version: "1.0.0"
routes:
  - { id: one, path: /one/*, upstream: "${upstream.origin}", cache: { enabled: true, ttl: 60000 } }
  - { id: two, path: /two/*, upstream: "${upstream.origin}", cache: { enabled: true, ttl: 60000 } }
`,
  );
  planes = await Promise.all(
    ['a', 'b'].map((name) => start({ configPath: config, dataDir: path.join(dir.path, name), host: '127.0.0.1', port: 0, logLevel: 'silent' })),
  );
});

after(async () => {
  await Promise.all(planes.map((p) => p.close()));
  await upstream.close();
  dir.remove();
});

const xCache = async (plane: RunningDataPlane, p: string): Promise<string> => (await request(`http://127.0.0.1:${plane.port}${p}`)).headers['x-cache'] as string;

test('purge(routeId) drops that route on every data plane it is called on, and only that route', async () => {
  for (const plane of planes) {
    assert.equal(await xCache(plane, '/one/x'), 'MISS');
    assert.equal(await xCache(plane, '/two/x'), 'MISS');
    assert.equal(await xCache(plane, '/one/x'), 'HIT');
  }
  for (const plane of planes) assert.equal(plane.cache.purge('one'), 1);
  for (const plane of planes) {
    assert.equal(await xCache(plane, '/one/x'), 'MISS');
    assert.equal(await xCache(plane, '/two/x'), 'HIT');
  }
  assert.equal(planes[0]!.cache.purge('unknown'), 0);
});
