import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '@gateway/testing';
import { runGateway } from './gateway-cli';

const VALID = `version: "1.0.0"
upstreams:
  - name: backend
    url: http://127.0.0.1:9000
routes:
  - path: /api/*
    upstream: backend
    timeout: { connect: 1000, request: 5000 }
  - path: /status
    upstream: http://127.0.0.1:9000/health
`;

// Three independent mistakes, on known lines.
const INVALID = `version: "1.0.0"
upstreams:
  - name: backend
    url: http://127.0.0.1:9000
routes:
  - path: /ok/*
    upstream: backend
  - path: no-slash
    upstream: backend
  - path: /bad-url
    upstream: "not a url"
  - path: /limited
    upstream: backend
    rateLimit:
      enabled: true
      max: 0
      windowMs: 1000
`;

// Valid against the schema, but asks for protection this data plane does not enforce yet.
const UNENFORCED = `version: "1.0.0"
routes:
  - path: /open
    upstream: http://127.0.0.1:9000
  - path: /private
    upstream: http://127.0.0.1:9000
    auth:
      enabled: true
      type: oauth2
`;

// Access rules (issue 18): one mistake per field, on known lines; the first route is valid.
const ACCESS_RULES = `version: "1.0.0"
routes:
  - path: /fine
    upstream: http://127.0.0.1:9000
    ipRestriction: { allow: ["10.0.0.0/8", "2001:db8::/32"] }
    cors: { origins: ["https://*.example.com"], credentials: true }
  - path: /bad
    upstream: http://127.0.0.1:9000
    ipRestriction:
      deny:
        - 10.0.0.0/40
    cors:
      origins: ["*"]
      credentials: true
      exposedHeaders: ["not a header"]
`;

describe('gateway config:validate', () => {
  const temp = makeTempDir('gateway-cli-validate-');
  after(() => temp.remove());
  const file = (name: string, text: string): string => {
    const full = path.join(temp.path, name);
    writeFileSync(full, text);
    return full;
  };

  test('a valid file: exit 0 and a one-line summary', async () => {
    const result = await runGateway(['config:validate', '--config', file('valid.yml', VALID)], { cwd: temp.path });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'valid.yml: valid (2 routes, 1 upstream)\n');
    assert.equal(result.stderr, '');
  });

  test('defaults to ./proxy.yml', async () => {
    const dir = makeTempDir('gateway-cli-validate-default-');
    try {
      writeFileSync(path.join(dir.path, 'proxy.yml'), VALID);
      const result = await runGateway(['config:validate'], { cwd: dir.path });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^proxy\.yml: valid/);
    } finally {
      dir.remove();
    }
  });

  test('an invalid file: exit 1 and every error as <file>:<line> <field>: <message>', async () => {
    const result = await runGateway(['config:validate', '--config', file('invalid.yml', INVALID)], { cwd: temp.path });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^invalid\.yml:8 routes\[1\]\.path: .+$/m);
    assert.match(result.stderr, /^invalid\.yml:11 routes\[2\]\.upstream: .+$/m);
    assert.match(result.stderr, /^invalid\.yml:16 routes\[3\]\.rateLimit\.max: .+$/m);
    assert.match(result.stderr, /^invalid\.yml: invalid \(\d+ errors\)$/m);
  });

  test("a route whose auth.jwt.secretEnv names the management JWT_SECRET: exit 1 naming the field and line", async () => {
    const yaml = 'version: "1.0.0"\nroutes:\n  - path: /private/*\n    upstream: http://127.0.0.1:9000\n    auth:\n      type: jwt\n      jwt:\n        secretEnv: JWT_SECRET\n';
    const result = await runGateway(['config:validate', '--config', file('route-jwt.yml', yaml)], { cwd: temp.path });
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, /^route-jwt\.yml:8 routes\[0\]\.auth\.jwt\.secretEnv: .*may not name JWT_SECRET/m);
  });

  test('websocket: true is valid; a bad websocket block names its field and line', async () => {
    const good = 'version: "1.0.0"\nroutes:\n  - path: /ws\n    upstream: http://127.0.0.1:9000\n    websocket: true\n';
    const valid = await runGateway(['config:validate', '--config', file('ws-good.yml', good)], { cwd: temp.path });
    assert.equal(valid.code, 0, valid.stderr);
    const bad = 'version: "1.0.0"\nroutes:\n  - path: /ws\n    upstream: http://127.0.0.1:9000\n    websocket:\n      enabled: true\n      maxConnections: 0\n      idleTimeout: "soon"\n';
    const result = await runGateway(['config:validate', '--config', file('ws-bad.yml', bad)], { cwd: temp.path });
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, /^ws-bad\.yml:7 routes\[0\]\.websocket\.maxConnections: .+$/m);
    assert.match(result.stderr, /^ws-bad\.yml:8 routes\[0\]\.websocket\.idleTimeout: .+$/m);
  });

  test('a YAML syntax error carries its line', async () => {
    const result = await runGateway(['config:validate', '--config', file('broken.yml', 'version: "1.0.0"\nroutes:\n  - path: /a\n    upstream: [unclosed\n')], { cwd: temp.path });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^broken\.yml:\d+ \(yaml\): .+$/m);
  });

  test('a missing file: exit 1 naming it', async () => {
    const result = await runGateway(['config:validate', '--config', 'nowhere.yml'], { cwd: temp.path });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /nowhere\.yml: cannot read .*nowhere\.yml: ENOENT/);
  });

  test('GATEWAY_CONFIG, also from .env, picks the file; the real environment wins over .env', async () => {
    const dir = makeTempDir('gateway-cli-validate-env-');
    try {
      writeFileSync(path.join(dir.path, 'from-dotenv.yml'), VALID);
      writeFileSync(path.join(dir.path, 'from-env.yml'), INVALID);
      writeFileSync(path.join(dir.path, '.env'), 'GATEWAY_CONFIG=from-dotenv.yml\n');
      const viaDotEnv = await runGateway(['config:validate'], { cwd: dir.path });
      assert.equal(viaDotEnv.code, 0, viaDotEnv.stderr);
      assert.match(viaDotEnv.stdout, /^from-dotenv\.yml: valid/);
      const viaEnv = await runGateway(['config:validate'], { cwd: dir.path, env: { GATEWAY_CONFIG: 'from-env.yml' } });
      assert.equal(viaEnv.code, 1);
      assert.match(viaEnv.stderr, /^from-env\.yml:8 /m);
      const viaFlag = await runGateway(['config:validate', '--config', 'from-dotenv.yml'], { cwd: dir.path, env: { GATEWAY_CONFIG: 'from-env.yml' } });
      assert.equal(viaFlag.code, 0);
    } finally {
      dir.remove();
    }
  });

  test('a block the data plane would not enforce is refused with its field and line, and start refuses it too', async () => {
    const config = file('unenforced.yml', UNENFORCED);
    const result = await runGateway(['config:validate', '--config', config], { cwd: temp.path });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /unenforced\.yml:9 routes\[1\]\.auth\.type: auth\.type 'oauth2' \(routes\[1\]\.auth\.type\) is not enforced by this version of the data plane yet/);
    const started = await runGateway(['start', '--config', config, '--port', '0', '--data-dir', path.join(temp.path, 'unenforced-data')], { cwd: temp.path });
    assert.equal(started.code, 1);
    assert.match(started.stderr, /routes\[1\]\.auth\.type/);
  });

  test('access rules: a bad CIDR, credentials with origin * and a bad header name, each with its field and line', async () => {
    const result = await runGateway(['config:validate', '--config', file('access.yml', ACCESS_RULES)], { cwd: temp.path });
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, /^access\.yml:11 routes\[1\]\.ipRestriction\.deny\[0\]: .*IP address or CIDR/m);
    assert.match(result.stderr, /^access\.yml:14 routes\[1\]\.cors\.credentials: cors\.credentials cannot be true when cors\.origins contains \*/m);
    assert.match(result.stderr, /^access\.yml:15 routes\[1\]\.cors\.exposedHeaders\[0\]: /m);
    assert.doesNotMatch(result.stderr, /routes\[0\]/);
  });
});
