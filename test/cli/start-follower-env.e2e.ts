import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EMPTY_PROXY_CONFIG, makeTempDir, refusedPort } from '@gateway/testing';
import { runGateway } from './gateway-cli';

/*
 * `gateway start --role data-plane` with CONTROL_PLANE_URL needs REDIS_URL and CLUSTER_TOKEN too
 * (issue 3): without them it refuses to start, naming every missing variable, before it listens.
 */
describe('gateway start --role data-plane following a control plane: required variables', () => {
  const temp = makeTempDir('gateway-cli-follower-env-');
  after(() => temp.remove());

  const start = async (label: string, env: NodeJS.ProcessEnv) => {
    const dir = path.join(temp.path, label);
    const dataDir = path.join(dir, 'data');
    const config = path.join(temp.path, `${label}.yml`);
    writeFileSync(config, EMPTY_PROXY_CONFIG);
    const controlPlane = `http://127.0.0.1:${await refusedPort()}`;
    const result = await runGateway(['start', '--role', 'data-plane', '--config', config, '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
      env: { CONTROL_PLANE_URL: controlPlane, REDIS_URL: 'redis://127.0.0.1:6379', CLUSTER_TOKEN: 'a-cluster-token-of-24-chars', ...env },
    });
    assert.equal(result.code, 1, `exit code; stdout:\n${result.stdout}`);
    assert.doesNotMatch(result.stdout, /gateway listening/);
    assert.equal(existsSync(path.join(dataDir, 'gateway.pid')), false, 'a pid file was written');
    return result.stderr;
  };

  test('no CLUSTER_TOKEN: refused, naming it', async () => {
    const stderr = await start('no-token', { CLUSTER_TOKEN: '' });
    assert.match(stderr, /^gateway start --role data-plane: CONTROL_PLANE_URL is set, but CLUSTER_TOKEN is not set \(it authenticates to the control plane with it\)$/m);
    assert.doesNotMatch(stderr, /REDIS_URL/);
  });

  test('no REDIS_URL: refused, naming it', async () => {
    const stderr = await start('no-redis', { REDIS_URL: '  ' });
    assert.match(stderr, /^gateway start --role data-plane: CONTROL_PLANE_URL is set, but REDIS_URL is not set \(it receives the changes over Redis\)$/m);
    assert.doesNotMatch(stderr, /CLUSTER_TOKEN/);
  });

  test('neither: both named in one message', async () => {
    const stderr = await start('neither', { REDIS_URL: '', CLUSTER_TOKEN: '' });
    assert.match(stderr, /CLUSTER_TOKEN is not set .*; REDIS_URL is not set /);
  });

  test('GATEWAY_TELEMETRY other than on or off: refused, naming it', async () => {
    const stderr = await start('telemetry', { GATEWAY_TELEMETRY: 'maybe' });
    assert.match(stderr, /GATEWAY_TELEMETRY must be on or off, got 'maybe'/);
  });
});
