import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { loginToManagementApi, makeTempDir, request, startUpstream, type LoopbackUpstream } from '@gateway/testing';
import { firstRunEnv, GATEWAY_CLI, runGateway, startGatewayIn } from './gateway-cli';

/*
 * Issue 11, "First run": a user runs `gateway start` in a directory with a proxy.yml and no .env
 * (the README's quick start), which generates JWT_SECRET and API_KEY_SECRET into ./.gateway; then
 * `gateway init`, then `init --force`. Nothing made before (an API key, a session) may stop
 * working, and a start never switches secrets silently.
 */
const ADMIN = { email: 'first@example.com', password: 'first-run-admin-password' };
const START_ARGS = ['start', '--config', 'proxy.yml', '--port', '0', '--host', '127.0.0.1'];
const START = [...GATEWAY_CLI, ...START_ARGS];

describe('a start whose .env secret changed since the previous start says so', () => {
  const dir = makeTempDir('gateway-secret-switch-');
  after(() => dir.remove());

  test('init first (secrets only in .env), start, change JWT_SECRET in .env, start: a warning names it', async () => {
    assert.equal((await runGateway(['init', '--skip-admin'], { cwd: dir.path, env: firstRunEnv() })).code, 0);
    const first = await startGatewayIn(dir.path, START, firstRunEnv());
    assert.equal(await first.stop(), 0);
    assert.ok(!first.output.some((line) => line.includes('is not the one the previous start used')), first.output.join('\n'));

    const envFile = path.join(dir.path, '.env');
    writeFileSync(envFile, readFileSync(envFile, 'utf8').replace(/^JWT_SECRET=.*$/m, `JWT_SECRET=${'n'.repeat(43)}`));
    const second = await startGatewayIn(dir.path, START, firstRunEnv());
    assert.equal(await second.stop(), 0);
    const warnings = second.output.filter((line) => line.includes('is not the one the previous start used'));
    assert.equal(warnings.length, 1, second.output.join('\n'));
    assert.match(warnings[0]!, /JWT_SECRET is not the one the previous start used \(management sessions issued before no longer verify\)/);
    assert.ok(!second.output.join('\n').includes('n'.repeat(43)), 'the secret is not logged');
  });
});

describe('first run: init after a start keeps the secrets the start generated', () => {
  const dir = makeTempDir('gateway-first-run-');
  let upstream: LoopbackUpstream;
  let apiKey: string;
  let sessionToken: string;

  before(async () => {
    upstream = await startUpstream();
    writeFileSync(path.join(dir.path, 'proxy.yml'), 'version: "1.0.0"\nroutes: []\n');
  });
  after(async () => {
    await upstream?.close();
    dir.remove();
  });

  const keyAccepted = async (url: string): Promise<number> => (await request(`${url}/keyed/x`, { headers: { 'x-api-key': apiKey } })).status;
  const sessionStatus = async (url: string): Promise<number> => (await request(`${url}/api/routes`, { headers: { authorization: `Bearer ${sessionToken}` } })).status;
  /** The route's API keys reach the data plane over the in-process bus just after the start. */
  const eventually = async (check: () => Promise<boolean>, what: string): Promise<void> => {
    for (let i = 0; i < 100; i += 1) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`timed out waiting for ${what}`);
  };

  test('a start without .env generates the secrets; an API key and a session are made with them', async () => {
    const gateway = await startGatewayIn(dir.path, START, firstRunEnv({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password }));
    try {
      const api = await loginToManagementApi(gateway.url, ADMIN);
      sessionToken = api.token;
      await api.expect(201, 'POST', '/api/routes', { id: 'keyed', path: '/keyed/*', upstream: upstream.origin, auth: { enabled: true, type: 'apiKey' } });
      apiKey = (await api.expect(201, 'POST', '/api/api-keys', { name: 'made-before-init' })).json<{ data: { key: string } }>().data.key;
      await eventually(async () => (await keyAccepted(gateway.url)) === 200, 'the key is accepted');
    } finally {
      assert.equal(await gateway.stop(), 0);
    }
  });

  test('init keeps proxy.yml, writes .env with the generated secrets, creates an admin that logs in; the key and the session still work', async () => {
    const result = await runGateway(['init'], { cwd: dir.path, env: firstRunEnv() });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Kept proxy\.yml: it exists/);
    assert.match(result.stdout, /^ {2}JWT_SECRET: the one an earlier start generated in \.gateway\/jwt-secret/m);
    assert.match(result.stdout, /^ {2}API_KEY_SECRET: the one an earlier start generated in \.gateway\/api-key-secret/m);
    assert.match(result.stdout, /^ {2}CLUSTER_TOKEN: the one an earlier start generated in \.gateway\/cluster-token/m);
    const password = /Created the admin account admin@localhost with the password: (\S+)/.exec(result.stdout)?.[1];
    assert.ok(password !== undefined, result.stdout);

    const env = parseEnv(readFileSync(path.join(dir.path, '.env'), 'utf8'));
    assert.equal(env['JWT_SECRET'], readFileSync(path.join(dir.path, '.gateway', 'jwt-secret'), 'utf8').trim());
    assert.equal(env['API_KEY_SECRET'], readFileSync(path.join(dir.path, '.gateway', 'api-key-secret'), 'utf8').trim());
    for (const value of [env['JWT_SECRET'], env['API_KEY_SECRET'], env['CLUSTER_TOKEN']]) assert.ok(value !== undefined && !result.stdout.includes(value), 'a secret was printed');

    const gateway = await startGatewayIn(dir.path, START, firstRunEnv());
    try {
      await loginToManagementApi(gateway.url, { email: 'admin@localhost', password });
      assert.equal(await sessionStatus(gateway.url), 200, 'the session from before init is still valid');
      await eventually(async () => (await keyAccepted(gateway.url)) === 200, 'the key made before init is accepted');
    } finally {
      assert.equal(await gateway.stop(), 0);
    }
  });

  test('init --force keeps the secrets too: the key made before still works', async () => {
    const before = readFileSync(path.join(dir.path, '.env'), 'utf8');
    const result = await runGateway(['init', '--force', '--skip-admin'], { cwd: dir.path, env: firstRunEnv() });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^ {2}API_KEY_SECRET: kept from the previous \.env$/m);
    assert.equal(readFileSync(path.join(dir.path, '.env.bak'), 'utf8'), before);
    const gateway = await startGatewayIn(dir.path, START, firstRunEnv());
    try {
      await eventually(async () => (await keyAccepted(gateway.url)) === 200, 'the key made before init --force is accepted');
    } finally {
      assert.equal(await gateway.stop(), 0);
    }
  });

  test('a start whose .env secrets differ from the ones kept in the data dir fails, naming the variable and the file', async () => {
    const envFile = path.join(dir.path, '.env');
    const original = readFileSync(envFile, 'utf8');
    const changed = original.replace(/^API_KEY_SECRET=.*$/m, `API_KEY_SECRET=${'x'.repeat(43)}`);
    assert.notEqual(changed, original);
    writeFileSync(envFile, changed);
    try {
      // init, which keeps that .env, says so before the start does.
      const init = await runGateway(['init', '--skip-admin'], { cwd: dir.path, env: firstRunEnv() });
      assert.equal(init.code, 0, init.stderr);
      assert.match(init.stderr, /^gateway init: API_KEY_SECRET in \.env differs from the one an earlier start kept in \.gateway\/api-key-secret; gateway start will refuse it/m);
      assert.doesNotMatch(init.stderr, /JWT_SECRET/);

      const result = await runGateway(START_ARGS, { cwd: dir.path, env: firstRunEnv() });
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(result.stderr, /API_KEY_SECRET: differs from the secret an earlier start generated and kept in .*\.gateway\/api-key-secret \(API keys created before would stop working\)/);
      assert.ok(!result.stderr.includes('x'.repeat(43)), 'the secret is not printed');
    } finally {
      writeFileSync(envFile, original);
    }
  });
});
