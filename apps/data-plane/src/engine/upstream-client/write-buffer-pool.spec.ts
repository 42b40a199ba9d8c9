import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WriteBufferPool } from './write-buffer-pool';

const KIB = 1024;
/** `held` index of the 16 KiB class (4, 8, 16, 32, 64 KiB). */
const CLASS_16K = 2;

/**
 * What the server does for one request: `write(res, lent)` is handed the response and one lent
 * buffer that the test overwrites after every write, as the shared read buffer is by the next read.
 */
type Writer = (res: http.ServerResponse, lent: Buffer) => void | Promise<void>;

describe('WriteBufferPool, through a real node:http server', () => {
  let server: http.Server;
  let port = 0;
  let writer: Writer = () => undefined;
  let finished: Promise<void> = Promise.resolve();

  before(async () => {
    server = http.createServer((_req, res) => {
      finished = new Promise((resolve) => res.on('close', resolve));
      void writer(res, Buffer.alloc(64 * KIB + 1));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** GETs the server's answer as one buffer; the response's close (every write's callback done) is awaited too. */
  async function fetchBody(): Promise<Buffer> {
    const body = await new Promise<Buffer>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve(Buffer.concat(chunks)));
          res.on('error', reject);
        })
        .on('error', reject);
    });
    await finished;
    return body;
  }

  /** Writes `count` slices of `size` bytes, slice i filled with i, all in one tick (node corks the first write). */
  const blocks = (pool: WriteBufferPool, count: number, size: number): Writer => (res, lent) => {
    res.writeHead(200, { 'content-length': String(count * size) });
    for (let i = 0; i < count; i += 1) {
      lent.fill(i % 251, 0, size);
      pool.write(res, lent.subarray(0, size));
      // The lender reuses its buffer at once: a copy still queued must not change.
      lent.fill(0xff);
    }
    res.end();
  };

  function assertBlocks(body: Buffer, count: number, size: number): void {
    assert.equal(body.length, count * size);
    for (let i = 0; i < count; i += 1) {
      const block = body.subarray(i * size, (i + 1) * size);
      assert.ok(block.every((byte) => byte === i % 251), `block ${i} arrived intact`);
    }
  }

  test('copies queued in one tick each get a buffer of their own, and come back once written', async () => {
    const pool = new WriteBufferPool();
    writer = blocks(pool, 40, 16 * KIB);
    assertBlocks(await fetchBody(), 40, 16 * KIB);
    assert.equal(pool.held[CLASS_16K], 40, 'every buffer came back after its write');
  });

  test('a later response reuses the buffers given back, and the bytes are still its own', async () => {
    const pool = new WriteBufferPool();
    writer = blocks(pool, 10, 16 * KIB);
    await fetchBody();
    assert.equal(pool.held[CLASS_16K], 10);
    let heldWhileQueued = -1;
    writer = async (res, lent) => {
      blocks(pool, 10, 16 * KIB)(res, lent);
      heldWhileQueued = pool.held[CLASS_16K] as number;
    };
    assertBlocks(await fetchBody(), 10, 16 * KIB);
    assert.equal(heldWhileQueued, 0, 'the ten queued copies took the ten free buffers');
    assert.equal(pool.held[CLASS_16K], 10, 'and gave them back');
  });

  test('a slice is copied into the smallest power-of-two class that holds it', async () => {
    const pool = new WriteBufferPool();
    writer = (res, lent) => {
      res.writeHead(200, { 'content-length': String(4 * KIB + 8 * KIB + 1 + 64 * KIB) });
      for (const size of [4 * KIB, 8 * KIB + 1, 64 * KIB]) {
        lent.fill(size % 251, 0, size);
        pool.write(res, lent.subarray(0, size));
      }
      res.end();
    };
    const body = await fetchBody();
    assert.equal(body.length, 4 * KIB + 8 * KIB + 1 + 64 * KIB);
    assert.deepEqual(pool.held, [1, 0, 1, 0, 1], '4 KiB, 8 KiB + 1 in 16 KiB, 64 KiB');
  });

  test('slices below 4 KiB and above 64 KiB are plain copies, outside the pool', async () => {
    const pool = new WriteBufferPool();
    writer = (res, lent) => {
      res.writeHead(200, { 'content-length': String(100 + 64 * KIB + 1) });
      lent.fill(7);
      pool.write(res, lent.subarray(0, 100));
      pool.write(res, lent.subarray(0, 64 * KIB + 1));
      lent.fill(0xff);
      res.end();
    };
    const body = await fetchBody();
    assert.ok(body.length === 100 + 64 * KIB + 1 && body.every((byte) => byte === 7));
    assert.deepEqual(pool.held, [0, 0, 0, 0, 0]);
  });

  test('the free buffers kept are bounded by the byte budget per class', async () => {
    const pool = new WriteBufferPool(64 * KIB);
    writer = blocks(pool, 10, 16 * KIB);
    assertBlocks(await fetchBody(), 10, 16 * KIB);
    assert.equal(pool.held[CLASS_16K], 4, '64 KiB of 16 KiB buffers');
  });

  test('writes into a response whose socket is gone do not throw, and the pool serves the next response intact', async () => {
    const pool = new WriteBufferPool();
    const gone = new Promise<void>((resolve, reject) => {
      writer = (res, lent) => {
        res.writeHead(200, { 'content-length': String(1024 * KIB) });
        res.socket?.destroy();
        try {
          for (let i = 0; i < 8; i += 1) pool.write(res, lent.subarray(0, 16 * KIB));
        } catch (error) {
          reject(error as Error);
        }
        resolve();
      };
    });
    await new Promise<void>((resolve) => {
      http.get({ host: '127.0.0.1', port, path: '/', agent: false }).on('error', () => resolve());
    });
    await gone;
    await finished;
    writer = blocks(pool, 20, 16 * KIB);
    assertBlocks(await fetchBody(), 20, 16 * KIB);
  });
});
