import { readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTempDir, request } from '@gateway/testing';
import { SECRET_FILES } from './config/secret-file';
import type { RunningControlPlane } from './control-plane-options';
import { ConfigError, start } from './start';

const JWT_SECRET_FILE = SECRET_FILES.jwt;
const ADMIN = { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'one-process-password' };

/** One-process mode: the data plane would mount `handler`; here a bare node:http server does. */
async function mount(cp: RunningControlPlane): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(cp.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test('one-process mode: no listener of its own, the handler serves /api, the generated JWT secret survives a restart', async () => {
  const dir = makeTempDir();
  const dataDir = path.join(dir.path, 'data');
  const options = { dataDir, configPath: path.join(dir.path, 'proxy.yml'), env: { ...ADMIN, LOG_LEVEL: 'silent' } };
  try {
    const first = await start(options);
    assert.equal(first.port, undefined);
    assert.equal(statSync(path.join(dataDir, JWT_SECRET_FILE)).mode & 0o777, 0o600);
    let server = await mount(first);
    const login = await request(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD }),
    });
    assert.equal(login.status, 200, login.text);
    const token = login.json<{ data: { token: string } }>().data.token;
    // The data plane answers the ops endpoints in this mode; the control plane does not.
    assert.equal((await request(`${server.url}/health`)).status, 404);
    assert.deepEqual(await first.readiness(), { database: 'UP' });
    await server.close();
    await first.close();

    const secret = readFileSync(path.join(dataDir, JWT_SECRET_FILE), 'utf8');
    const second = await start(options);
    server = await mount(second);
    const session = await request(`${server.url}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(session.status, 200, 'a token issued before the restart is still valid');
    assert.equal(readFileSync(path.join(dataDir, JWT_SECRET_FILE), 'utf8'), secret);
    await server.close();
    await second.close();
  } finally {
    dir.remove();
  }
});

test('a bad environment fails start() with every bad variable named', async () => {
  const dir = makeTempDir();
  try {
    await assert.rejects(
      start({ dataDir: dir.path, configPath: path.join(dir.path, 'proxy.yml'), listen: { port: 0 }, env: { REDIS_URL: 'http://x', LOG_LEVEL: 'noisy' } }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems.map((p) => p.variable).sort(), ['JWT_SECRET', 'LOG_LEVEL', 'REDIS_URL', 'SETTINGS_ENCRYPTION_KEY']);
        return true;
      },
    );
  } finally {
    dir.remove();
  }
});

test('Redis configured but down: start succeeds, readiness says redis DOWN, nothing crashes', async () => {
  const dir = makeTempDir();
  const unused = http.createServer();
  await new Promise<void>((resolve) => unused.listen(0, '127.0.0.1', resolve));
  const { port } = unused.address() as AddressInfo;
  await new Promise((resolve) => unused.close(resolve));
  try {
    const cp = await start({
      dataDir: dir.path,
      configPath: path.join(dir.path, 'proxy.yml'),
      env: { REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'silent' },
    });
    try {
      assert.deepEqual(await cp.readiness(), { database: 'UP', redis: 'DOWN' });
      // Heartbeats keep failing to publish for a while; the process must shrug that off.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const outcome = await cp.reconcileFile();
      assert.ok(outcome.ok);
    } finally {
      await cp.close();
    }
  } finally {
    dir.remove();
  }
});
