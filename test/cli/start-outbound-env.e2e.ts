import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '@gateway/testing';
import { runGateway } from './gateway-cli';

const dir = makeTempDir('gateway-outbound-env-');
after(() => dir.remove());

test('a bad OUTBOUND_ALLOW_CIDRS stops `gateway start --role data-plane`, naming the variable and the entry', async () => {
  const config = path.join(dir.path, 'proxy.yml');
  writeFileSync(config, 'version: "1.0.0"\nroutes: []\n');
  const result = await runGateway(['start', '--role', 'data-plane', '--config', config, '--data-dir', path.join(dir.path, 'data'), '--port', '0'], {
    env: { OUTBOUND_ALLOW_CIDRS: '169.254.169.254/40' },
  });
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assert.match(result.stderr, /^gateway start: OUTBOUND_ALLOW_CIDRS: "169\.254\.169\.254\/40" has a prefix length outside 0-32$/m);
});
