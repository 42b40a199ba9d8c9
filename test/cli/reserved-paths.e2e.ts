import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '@gateway/testing';
import { runGateway } from './gateway-cli';

const temp = makeTempDir('gateway-reserved-');
after(() => temp.remove());

test('one process: a proxy.yml route under /api is refused by name (it could never be reached); the data plane alone accepts it', async () => {
  const config = path.join(temp.path, 'proxy.yml');
  writeFileSync(config, 'version: "1.0.0"\nroutes:\n  - path: /ok/*\n    upstream: http://127.0.0.1:9\n  - path: /api/*\n    upstream: http://127.0.0.1:9\n');
  const result = await runGateway(['start', '--config', config, '--port', '0', '--data-dir', path.join(temp.path, 'data')], { cwd: temp.path });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /routes\[1\]\.path: \/api\/\* is under \/api, which the management API serves/);
  assert.match(result.stderr, /is invalid \(1 error\); not started/);

  const validate = await runGateway(['config:validate', '--config', config]);
  assert.equal(validate.code, 0, 'valid for a data plane of its own');
});
