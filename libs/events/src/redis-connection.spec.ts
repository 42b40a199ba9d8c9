import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeSelfSignedCert, makeTempDir, startRedisServer, type RedisServer } from '@gateway/testing';
import { readRedisTlsCa } from './redis-connection';
import { RedisBus } from './redis-bus';

const quiet = { warn: () => undefined, info: () => undefined };

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('Redis over TLS with an ACL user (a private redis-server: TLS port only, default user off)', () => {
  const cert = makeSelfSignedCert();
  // Characters a URL must percent-encode: the password reaches Redis decoded.
  const user = { name: 'gateway', password: 'p@ss:w/rd#%-0123456789' };
  let server: RedisServer;
  const buses: RedisBus[] = [];
  before(async () => {
    server = await startRedisServer({ tls: { certPath: cert.certPath, keyPath: cert.keyPath }, user });
  });
  after(async () => {
    for (const bus of buses) await bus.close();
    await server?.stop();
    cert.remove();
  });
  const bus = (url: string, tlsCa?: string): RedisBus => {
    const created = new RedisBus(url, { logger: quiet, connectTimeoutMs: 500, commandTimeoutMs: 500, ...(tlsCa === undefined ? {} : { tlsCa }) });
    buses.push(created);
    return created;
  };

  test('rediss:// with user:password and the CA: connected, and messages flow', async () => {
    assert.match(server.url, /^rediss:\/\/gateway:p%40ss%3Aw%2Frd%23%25-0123456789@127\.0\.0\.1:\d+$/);
    const a = bus(server.url, cert.cert);
    const b = bus(server.url, cert.cert);
    await until('connected', () => a.ping());
    const seen: unknown[] = [];
    await b.subscribe('c', (m) => seen.push(m));
    await until('delivery', async () => {
      await a.publish('c', 'over tls');
      return seen.length > 0;
    });
    assert.equal(seen[0], 'over tls');
  });

  test('refused: without the CA (self-signed), with a wrong password, without a user, and plain redis:// to the TLS port', async () => {
    const url = new URL(server.url);
    const wrongPassword = new URL(server.url);
    wrongPassword.password = 'wrong';
    const noUser = `rediss://127.0.0.1:${url.port}`;
    const plain = server.url.replace(/^rediss:/, 'redis:');
    const refused = [bus(server.url), bus(wrongPassword.href, cert.cert), bus(noUser, cert.cert), bus(plain, cert.cert)];
    // Given time to try (and fail) a few connections each.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.deepEqual(await Promise.all(refused.map((b) => b.ping())), [false, false, false, false]);
  });
});

test('REDIS_TLS_CA_FILE: read when it holds a PEM certificate and REDIS_URL is rediss://; otherwise an error naming the variable', () => {
  const dir = makeTempDir('redis-ca-');
  try {
    const cert = path.join(dir.path, 'ca.pem');
    const junk = path.join(dir.path, 'junk.pem');
    writeFileSync(cert, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    writeFileSync(junk, 'not a certificate');
    assert.match(readRedisTlsCa(cert, 'rediss://h:6380'), /BEGIN CERTIFICATE/);
    assert.throws(() => readRedisTlsCa(cert, 'redis://h:6379'), /^Error: REDIS_TLS_CA_FILE is set, but REDIS_URL is not a rediss:\/\/ URL$/);
    assert.throws(() => readRedisTlsCa(cert, undefined), /REDIS_URL is not a rediss/);
    assert.throws(() => readRedisTlsCa(path.join(dir.path, 'absent.pem'), 'rediss://h'), /^Error: REDIS_TLS_CA_FILE: cannot read .*absent\.pem \(ENOENT\)$/);
    assert.throws(() => readRedisTlsCa(junk, 'rediss://h'), /^Error: REDIS_TLS_CA_FILE: .*junk\.pem holds no PEM certificate$/);
  } finally {
    dir.remove();
  }
});
