import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '@gateway/testing';
import { runGateway } from './gateway-cli';

const dir = makeTempDir('gateway-drain-env-');
after(() => dir.remove());

for (const [name, value] of [
  ['DRAIN_DELAY_SECONDS', 'soon'],
  ['DRAIN_DELAY_SECONDS', '-1'],
  ['DRAIN_TIMEOUT_SECONDS', '1.5'],
  ['DRAIN_TIMEOUT_SECONDS', '3601'],
] as const) {
  test(`${name}=${value} stops \`gateway start\` with an error naming the variable`, async () => {
    const config = path.join(dir.path, 'proxy.yml');
    writeFileSync(config, 'version: "1.0.0"\nroutes: []\n');
    const result = await runGateway(['start', '--role', 'data-plane', '--config', config, '--data-dir', path.join(dir.path, 'data'), '--port', '0'], { env: { [name]: value } });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stderr, new RegExp(`^gateway start: ${name} must be a whole number of seconds from 0 to 3600, got '${value.replace('.', '\\.')}'$`, 'm'));
  });
}
