import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { caller, eventually, login, type Call } from './auth-fixtures';
import type { LogLine } from '@gateway/logging';

/*
 * One logger on the one-process gateway (`gateway start`, both planes): credentials sent to
 * either plane appear in no line of its stdout, and GET /api/logs holds the data plane's lines
 * with their correlation ids. LOG_LEVEL=debug, so the data plane's access log writes every
 * request's headers: the shared redaction list is what keeps them out.
 */
const ADMIN = { email: 'logs@example.com', password: 'one-process-logs-password' };

// None of these has the shape of a credential (no "Bearer", no JWT, no key=value): only the
// path-based list can catch them.
const SECRETS = {
  authorization: 'Custom authorization-value-1f3a9c',
  cookie: 'session=cookie-value-7d2e4b',
  apiKey: 'api-key-value-0c8b5e',
  password: 'password-value-5a6f1d',
  bearer: 'Bearer bearer-value-9e4c2a',
  proxyAuthorization: 'Custom proxy-authorization-value-3b7d0f',
};

describe('one logger on the one-process gateway', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  let call: Call;
  let token: string;

  before(async () => {
    upstream = await startUpstream();
    gateway = await startGatewayProcess({
      role: 'all',
      config: `version: "1.0.0"
routes:
  - id: open
    path: /open/*
    upstream: ${upstream.origin}
  - id: keyed
    path: /keyed/*
    upstream: ${upstream.origin}
    auth: { enabled: true, type: apiKey }
`,
      startTimeoutMs: 30_000,
      env: { LOG_LEVEL: 'debug', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, API_KEY_SECRET: '', JWT_SECRET: '', DATABASE_URL: '', REDIS_URL: '', API_RATE_LIMIT_ADMIN_MAX: '10000', API_RATE_LIMIT_GENERAL_MAX: '10000' },
    });
    call = caller(gateway);
    token = await login(call, ADMIN);

    const credentials = { authorization: SECRETS.authorization, 'proxy-authorization': SECRETS.proxyAuthorization, cookie: SECRETS.cookie, 'x-api-key': SECRETS.apiKey };
    const proxied = await request(`${gateway.url}/open/orders?page=2`, {
      method: 'POST',
      headers: { ...credentials, 'content-type': 'application/json', 'x-correlation-id': 'corr-open-1' },
      body: JSON.stringify({ password: SECRETS.password }),
    });
    assert.equal(proxied.status, 200, proxied.text);
    // A configured secret where no pattern would see one (the admin password in a path): the
    // access-log line writes the path, the value-based layer removes it.
    assert.equal((await request(`${gateway.url}/open/${ADMIN.password}`, { headers: { 'x-correlation-id': 'corr-path-1' } })).status, 200);
    const refused = await request(`${gateway.url}/keyed/orders`, { headers: { ...credentials, 'x-correlation-id': 'corr-keyed-1' } });
    assert.equal(refused.status, 401, refused.text);
    const login401 = await call('POST', '/api/auth/login', { body: { email: ADMIN.email, password: SECRETS.password }, headers: { cookie: SECRETS.cookie, 'x-api-key': SECRETS.apiKey, 'x-correlation-id': 'corr-login-1' } });
    assert.equal(login401.status, 401, login401.text);
    const anonymous = await call('GET', '/api/routes', { headers: { authorization: SECRETS.bearer } });
    assert.equal(anonymous.status, 401, anonymous.text);
  });
  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const logs = async (): Promise<LogLine[]> => {
    const res = await call('GET', '/api/logs?limit=1000', { token });
    assert.equal(res.status, 200, res.text);
    return res.json<{ data: LogLine[] }>().data;
  };
  const secretValues = [...Object.values(SECRETS).map((value) => value.replace(/^(Custom|Bearer) /, '').replace(/^session=/, '')), ADMIN.password];

  test('GET /api/logs holds the data plane\'s and the CLI\'s lines, the data plane\'s with the correlation id of their request', async () => {
    await eventually(async () => (await logs()).some((l) => l.plane === 'data' && l.correlationId === 'corr-keyed-1'), 'the data plane\'s refusal line');
    const lines = await logs();
    const refusal = lines.find((l) => l.plane === 'data' && l.correlationId === 'corr-keyed-1' && l.level === 'warn');
    assert.ok(refusal !== undefined, JSON.stringify(lines.filter((l) => l.plane === 'data')));
    assert.equal(refusal.message, 'authentication refused');
    assert.equal(refusal.fields['routeId'], 'keyed');
    const access = lines.find((l) => l.plane === 'data' && l.correlationId === 'corr-open-1' && l.message === 'request');
    assert.ok(access !== undefined, 'the access-log line of the proxied request');
    assert.equal(access.fields['path'], '/open/orders');
    // Both planes in one buffer, the control plane's request line with its id too, and the CLI's own lines.
    assert.ok(lines.some((l) => l.plane === 'control' && l.context === 'HTTP' && l.correlationId === 'corr-login-1'));
    assert.ok(lines.some((l) => l.plane === 'cli' && l.message === 'pid file written'), 'the CLI\'s lines');
    const text = JSON.stringify(lines);
    for (const secret of secretValues) assert.ok(!text.includes(secret), `${secret} reached GET /api/logs`);
  });

  test('no credential sent to either plane appears in any stdout line; the access log shows the headers censored', async () => {
    await gateway.waitForOutput('"corr-login-1"');
    const lines = gateway.output.filter((line) => line.trim() !== '');
    for (const line of lines) {
      for (const secret of secretValues) assert.ok(!line.includes(secret), `${secret} leaked in: ${line}`);
    }
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(new Set(parsed.map((l) => l['plane'])), new Set(['cli', 'control', 'data']), 'every line is JSON of the one format');
    const access = parsed.find((l) => l['correlationId'] === 'corr-open-1' && l['msg'] === 'request') as { req: { headers: Record<string, string> } } | undefined;
    assert.ok(access !== undefined, 'the data plane logged the request at debug');
    for (const header of ['authorization', 'proxy-authorization', 'cookie', 'x-api-key']) assert.equal(access.req.headers[header], '[REDACTED]', header);
    assert.equal(parsed.find((l) => l['correlationId'] === 'corr-path-1' && l['msg'] === 'request')?.['path'], '/open/[REDACTED]');
    assert.ok(parsed.every((l) => typeof l['level'] === 'number' && typeof l['time'] === 'string' && typeof l['msg'] === 'string' && l['service'] === 'gateway'));
  });
});
