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
 * The control plane drains its API on SIGTERM like a data plane (docs/deployment.md,
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

/**
 * The same drain in the control-plane role and in one process (where the data plane serves the
 * API on its port and logs its own 'draining' line).
 */
for (const role of ['control-plane', 'all'] as const) {
  describe(`${role === 'all' ? 'one-process gateway' : 'control-plane role'} drain on SIGTERM`, () => {
    let secrets: ClusterSecrets;
    let gateway: GatewayProcess;

    before(async () => {
      secrets = clusterSecrets(`${role}-drain`);
      gateway = await startGatewayProcess({
        role,
        config: EMPTY_PROXY_CONFIG,
        env: { ...controlPlaneEnv(secrets, undefined), DRAIN_DELAY_SECONDS: '3', DRAIN_TIMEOUT_SECONDS: '30' },
        startTimeoutMs: 30_000,
      });
    });

    after(async () => {
      await gateway?.stop();
    });

    test('readiness 503 at once, API calls served through the delay, the call in flight finishes with Connection: close, exit 0', async () => {
      assert.equal((await request(`${gateway.url}/health/serving`)).status, 200);
      const login = startSlowLogin(gateway.port, secrets.admin);

      // A signal that arrives before `gateway start` has handed its planes to the signal handlers
      // (it still writes its pid and url files after listening) is applied once it has: poll.
      gateway.signal('SIGTERM');
      let serving = await request(`${gateway.url}/health/serving`);
      for (let i = 0; i < 200 && serving.status === 200; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        serving = await request(`${gateway.url}/health/serving`);
      }
      assert.equal(serving.status, 503);
      assert.equal(serving.json()['draining'], true);
      assert.equal((await request(`${gateway.url}/health/ready`)).status, 503);
      const during = await request(`${gateway.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(secrets.admin) });
      assert.equal(during.status, 200, 'API calls are still served during the drain delay');

      await waitForConnectionRefused(gateway.port);
      login.sendRest();
      const raw = await withTimeout(login.response, 20_000, 'the login in flight got no answer');
      assert.match(raw, /^HTTP\/1\.1 200 /);
      assert.match(raw, /\r\nConnection: close\r\n/i);
      assert.match(raw, /"token"/);
      assert.equal(await withTimeout(gateway.exited, 20_000, 'the gateway did not exit'), 0);
    });
  });
}
