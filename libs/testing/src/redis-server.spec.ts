import net from 'node:net';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRedisServer, type RedisServer } from './redis-server';

/** PING as an inline command on a fresh connection: `+PONG`, or the connection error's code. */
function ping(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(3000, () => socket.destroy(new Error('timeout')));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply.trim());
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

let server: RedisServer | undefined;
after(() => server?.stop());

test('a private redis-server answers on its port; killed, it refuses connections; restarted, it answers on the same port', async () => {
  server = await startRedisServer();
  assert.equal(server.url, `redis://127.0.0.1:${server.port}`);
  assert.equal(await ping(server.port), '+PONG');

  await server.kill();
  assert.equal(server.running, false);
  assert.equal(await ping(server.port), 'ECONNREFUSED');
  await server.kill(); // idempotent

  await server.restart();
  assert.equal(server.running, true);
  assert.equal(await ping(server.port), '+PONG');
  await assert.rejects(server.restart(), /still running/);
});
