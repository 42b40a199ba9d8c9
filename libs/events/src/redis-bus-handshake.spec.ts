import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { test } from 'node:test';
import { RedisBus } from './redis-bus';

const REDIS_URL = new URL(process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379');

/**
 * A loopback TCP proxy to the real Redis that holds the server's bytes of the first connection
 * until `release()`: the client stays in the middle of its connection handshake meanwhile.
 */
async function handshakeHoldingProxy(): Promise<{ port: number; clientBytes: () => number; release(): void; close(): Promise<void> }> {
  let held: net.Socket | undefined;
  let pending: Buffer[] = [];
  let released = false;
  let clientBytes = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(REDIS_URL.port || 6379), REDIS_URL.hostname);
    sockets.add(client).add(upstream);
    const first = held === undefined;
    if (first) held = client;
    client.on('data', (chunk: Buffer) => {
      if (first) clientBytes += chunk.length;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => (first && !released ? pending.push(chunk) : client.write(chunk)));
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    clientBytes: () => clientBytes,
    release: () => {
      released = true;
      for (const chunk of pending) held?.write(chunk);
      pending = [];
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function until(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/*
 * Regression: ioredis writes a SUBSCRIBE issued during its connection handshake at once; its ready
 * check then fails in subscriber mode, the connection is recycled and that channel was lost for
 * good (a data plane that never received control-plane commands). The bus subscribes only on a
 * ready connection.
 */
test('a channel subscribed while the connection is still in its handshake is delivered, as is one subscribed before', async () => {
  const proxy = await handshakeHoldingProxy();
  const prefix = `test:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const quiet = { warn: () => undefined, info: () => undefined };
  const subscriber = new RedisBus(`redis://127.0.0.1:${proxy.port}`, { channelPrefix: prefix, logger: quiet });
  const publisher = new RedisBus(REDIS_URL.href, { channelPrefix: prefix, logger: quiet });
  try {
    const seen: string[] = [];
    const early = subscriber.subscribe<string>('early', (m) => seen.push(`early:${m}`));
    // The client has sent its handshake (CLIENT SETNAME ...) and waits for the answers.
    await until('the handshake to start', () => proxy.clientBytes() > 0);
    const during = subscriber.subscribe<string>('during', (m) => seen.push(`during:${m}`));
    await new Promise((resolve) => setTimeout(resolve, 100));
    proxy.release();
    await Promise.all([early, during]);
    await until('both channels delivered', () => {
      void publisher.publish('early', 'x');
      void publisher.publish('during', 'y');
      return seen.includes('early:x') && seen.includes('during:y');
    });
  } finally {
    await subscriber.close();
    await publisher.close();
    await proxy.close();
  }
});
