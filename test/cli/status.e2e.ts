import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, refusedPort, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { runGateway, waitFor } from './gateway-cli';

describe('gateway status', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    upstream = await startUpstream();
    gateway = await startGatewayProcess({
      config: `version: "1.0.0"\nroutes:\n  - path: /a/*\n    upstream: ${upstream.origin}\n  - path: /b\n    upstream: ${upstream.origin}\n`,
    });
  });
  after(async () => {
    await gateway.stop();
    await upstream.close();
  });

  test('start records its address; status reads version, routes and readiness from it', async () => {
    const urlFile = path.join(gateway.dataDir, 'gateway.url');
    const recorded = await waitFor('gateway.url', () => (existsSync(urlFile) ? readFileSync(urlFile, 'utf8').trim() : undefined));
    assert.equal(recorded, gateway.url);

    const result = await runGateway(['status', '--data-dir', gateway.dataDir]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`Gateway at ${gateway.url.replace(/[.]/g, '\\.')}`));
    assert.match(result.stdout, /routes +2\n/);
    assert.match(result.stdout, /health +UP \(config UP, upstreams UP\)/);
    assert.match(result.stdout, /API 1\.0\.0, config schema 1\.0\.0/);
  });

  test('--json prints one object with the same facts', async () => {
    const result = await runGateway(['status', '--url', gateway.url, '--json']);
    assert.equal(result.code, 0, result.stderr);
    const status = JSON.parse(result.stdout) as { ready: boolean; routes: number; readiness: { status: string }; version: { apiVersion: string } };
    assert.equal(status.ready, true);
    assert.equal(status.routes, 2);
    assert.equal(status.readiness.status, 'UP');
    assert.equal(status.version.apiVersion, '1.0.0');
  });

  test('a gateway that is not there: exit 1 with the reason, no stack trace', async () => {
    const port = await refusedPort();
    const result = await runGateway(['status', '--url', `http://127.0.0.1:${port}`]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /cannot reach the gateway at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });

  test('no recorded address and no --url: says how to point it at a gateway', async () => {
    const dir = makeTempDir('gateway-status-');
    try {
      const result = await runGateway(['status', '--data-dir', path.join(dir.path, 'none')]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /cannot find a running gateway: no .*gateway\.url .*pass --url or set GATEWAY_URL/);
    } finally {
      dir.remove();
    }
  });

  test('a bad --url is a usage-level error naming the flag', async () => {
    const result = await runGateway(['status', '--url', 'ftp://x']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /--url: 'ftp:\/\/x' is not an http\(s\) URL/);
  });
});
