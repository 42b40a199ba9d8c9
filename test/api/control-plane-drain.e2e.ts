import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import {
  clusterSecrets,
  controlPlaneEnv,
  EMPTY_PROXY_CONFIG,
  request,
  startGatewayProcess,
  waitForConnectionRefused,
  withTimeout,
  type ClusterSecrets,
  type GatewayProcess,
} from '@gateway/testing';

/*
 * The control-plane role drains its API on SIGTERM like a data plane (docs/deployment.md,
 * "Graceful drain"): readiness 503 at once, API calls still served through the drain delay, the
 * call in flight when the listener closes finishes (with `Connection: close`), exit 0.
 */

/** A login whose body is sent in two parts: in flight for as long as the test holds the second part. */
function startSlowLogin(port: number, credentials: { email: string; password: string }): { sendRest(): void; response: Promise<string> } {
  const body = JSON.stringify(credentials);
  const half = Math.floor(body.length / 2);
  const socket = net.connect(port, '127.0.0.1');
  socket.write(`POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // Keep-alive was asked for (HTTP/1.1, no Connection header): the server ends the connection only if it says `Connection: close`.
  const response = new Promise<string>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
  return { sendRest: () => socket.write(body.slice(half)), response };
}

describe('control plane drain on SIGTERM', () => {
  let secrets: ClusterSecrets;
  let cp: GatewayProcess;

  before(async () => {
    secrets = clusterSecrets('cp-drain');
    cp = await startGatewayProcess({
      role: 'control-plane',
      config: EMPTY_PROXY_CONFIG,
      env: { ...controlPlaneEnv(secrets, undefined), DRAIN_DELAY_SECONDS: '3', DRAIN_TIMEOUT_SECONDS: '30' },
      startTimeoutMs: 30_000,
    });
  });

  after(async () => {
    await cp?.stop();
  });

  test('readiness 503 at once, API served through the delay, the call in flight finishes with Connection: close, exit 0', async () => {
    assert.equal((await request(`${cp.url}/health/serving`)).status, 200);
    const login = startSlowLogin(cp.port, secrets.admin);

    cp.signal('SIGTERM');
    await cp.waitForOutput('stopping: draining');
    const serving = await request(`${cp.url}/health/serving`);
    assert.equal(serving.status, 503);
    assert.equal(serving.json()['draining'], true);
    assert.equal((await request(`${cp.url}/health/ready`)).status, 503);
    assert.equal((await request(`${cp.url}/version`)).status, 200, 'API calls are still served during the drain delay');

    await waitForConnectionRefused(cp.port);
    login.sendRest();
    const raw = await withTimeout(login.response, 20_000, 'the login in flight got no answer');
    assert.match(raw, /^HTTP\/1\.1 200 /);
    assert.match(raw, /\r\nConnection: close\r\n/i);
    assert.match(raw, /"token"/);
    assert.equal(await withTimeout(cp.exited, 20_000, 'the control plane did not exit'), 0);
  });
});
