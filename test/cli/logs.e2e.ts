import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { GATEWAY_COMMAND, loginToManagementApi, request, type ClusterSecrets, type GatewayProcess, type ManagementApi } from '@gateway/testing';
import { auditedLogins, cliEnv, runGateway, startAdminGateway, waitFor } from './gateway-cli';
import type { LogLine } from '@gateway/logging';

const parseLines = (stdout: string): LogLine[] =>
  stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LogLine);

describe('gateway logs', () => {
  let gateway: GatewayProcess;
  let secrets: ClusterSecrets;
  let adminEnv: NodeJS.ProcessEnv;
  let api: ManagementApi;
  const logs = (...args: string[]) => runGateway(['logs', '--data-dir', gateway.dataDir, ...args], { env: adminEnv });
  const logins = () => auditedLogins(api);

  before(async () => {
    ({ gateway, secrets, adminEnv } = await startAdminGateway('cli-logs', 'version: "1.0.0"\nroutes: []\n'));
    api = await loginToManagementApi(gateway.url, secrets.admin);
  });
  after(async () => {
    await gateway?.stop();
  });

  test('prints the newest N lines as JSON objects, oldest first', async () => {
    const result = await logs('--limit', '5');
    assert.equal(result.code, 0, result.stderr);
    const lines = parseLines(result.stdout);
    assert.equal(lines.length, 5);
    for (const line of lines) assert.deepEqual(Object.keys(line).sort(), ['context', 'correlationId', 'fields', 'level', 'message', 'plane', 'time']);
    const times = lines.map((line) => Date.parse(line.time));
    assert.deepEqual(times, [...times].sort((a, b) => a - b));
    // The newest lines the gateway held then: in the whole buffer only later requests follow them.
    const all = parseLines((await logs('--limit', '1000')).stdout);
    const start = all.findIndex((line) => JSON.stringify(line) === JSON.stringify(lines[0]));
    assert.ok(start > 0, 'the buffer holds older lines too');
    assert.deepEqual(all.slice(start, start + 5), lines);
    assert.ok(all.slice(start + 5).every((line) => line.context === 'HTTP'), 'only the request lines of the calls since');
  });

  test('--level warn: warnings and worse only, such as a failed login', async () => {
    await request(`${gateway.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'intruder@example.com', password: 'guessing password 1' }) });
    const result = await logs('--level', 'warn');
    assert.equal(result.code, 0, result.stderr);
    const lines = parseLines(result.stdout);
    assert.ok(lines.some((line) => line.level === 'warn' && line.message.includes('login failed')), result.stdout);
    assert.ok(lines.every((line) => ['warn', 'error', 'fatal'].includes(line.level)));
  });

  test('--follow keeps printing new lines, each once, without logging in again', async () => {
    const child = spawn(process.execPath, [...GATEWAY_COMMAND, 'logs', '--follow', '--limit', '3', '--data-dir', gateway.dataDir], {
      env: cliEnv(adminEnv),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    try {
      await waitFor('the first lines', () => (stdout.split('\n').length > 3 ? true : undefined), 10_000);
      await api.expect(201, 'POST', '/api/routes', { id: 'followed', path: '/followed', upstream: 'http://127.0.0.1:9' });
      await waitFor('the request line of the new route', () => (/POST \/api\/routes 201/.test(stdout) ? true : undefined), 10_000);
      // A few more polls (one a second) with nothing new: nothing is printed twice.
      await new Promise((resolve) => setTimeout(resolve, 2500));
    } finally {
      child.kill('SIGINT');
      await once(child, 'close');
    }
    assert.equal(stderr, '');
    const printed = stdout.split('\n').filter((line) => line !== '');
    assert.equal(new Set(printed).size, printed.length, 'a line printed twice');
    const lines = parseLines(stdout);
    const times = lines.map((line) => Date.parse(line.time));
    assert.deepEqual(times, [...times].sort((a, b) => a - b));
    // The test's login and the CLI's first (earlier test); --follow reused the cached token.
    assert.equal(await logins(), 2);
  });

  test('bad --limit and --level are usage errors naming the option', async () => {
    const limit = await logs('--limit', '0');
    assert.equal(limit.code, 2);
    assert.match(limit.stderr, /invalid value for --limit: '0'/);
    const level = await logs('--level', 'loud');
    assert.equal(level.code, 2);
    assert.match(level.stderr, /invalid value for --level: 'loud'/);
  });
});
