import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { runGateway } from './gateway-cli';

/** The README's quick start runs the repository's own proxy.yml: it must stay valid and serve. */
describe("the repository's example proxy.yml", () => {
  const example = path.join(REPO_ROOT, 'proxy.yml');

  test('config:validate accepts it', async () => {
    const result = await runGateway(['config:validate', '--config', example], { cwd: REPO_ROOT });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^proxy\.yml: valid \(\d+ routes?, \d+ upstreams?\)\n$/);
  });

  describe('served on another loopback address with --host', () => {
    let upstream: LoopbackUpstream;
    let gateway: GatewayProcess;

    before(async () => {
      upstream = await startUpstream();
      // The example's upstream address is swapped for a live one; everything else is the file as shipped.
      const config = readFileSync(example, 'utf8').replaceAll('http://127.0.0.1:9000', upstream.origin);
      assert.notEqual(config, readFileSync(example, 'utf8'), 'the example names http://127.0.0.1:9000 as its upstream');
      gateway = await startGatewayProcess({ config, args: ['--host', '127.0.0.2'] });
    });

    after(async () => {
      await gateway?.stop();
      await upstream?.close();
    });

    test('--host decides the listening address (the config says 127.0.0.1)', async () => {
      const listening = JSON.parse(await gateway.waitForOutput('gateway listening')) as { host: string };
      assert.equal(listening.host, '127.0.0.2');
      const res = await request(`http://127.0.0.2:${gateway.port}/backend/users/42`);
      assert.equal(res.status, 200);
      await assert.rejects(request(`http://127.0.0.1:${gateway.port}/health`), /ECONNREFUSED/);
    });
  });
});
