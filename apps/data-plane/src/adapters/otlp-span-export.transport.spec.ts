import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { makeSelfSignedCert } from '@gateway/testing';
import { LeanOtlpTransport, loadSdkInternals } from './otlp-span-export.transport';

/** The export transport alone, with the SDK's retry loop around it as the adapter builds it. */
const sdk = loadSdkInternals();

function transport(url: string, extra: { compression?: 'gzip' } = {}) {
  assert.ok(sdk !== undefined, 'the SDK internals load in this version');
  const lean = new LeanOtlpTransport({ url, headers: () => ({ 'Content-Type': 'application/x-protobuf', authorization: 'Bearer t' }), ...extra }, sdk);
  return { lean, retrying: sdk.createRetryingTransport({ transport: lean }) };
}

/** A collector whose answers are given in order (the last repeats); records what it received. */
async function scriptedCollector(answers: ReadonlyArray<{ status: number; headers?: Record<string, string> }>) {
  const received: Array<{ headers: http.IncomingHttpHeaders; body: Buffer }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      const answer = answers[Math.min(received.length - 1, answers.length - 1)] as { status: number; headers?: Record<string, string> };
      res.writeHead(answer.status, answer.headers).end(answer.status === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  return { url, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

const payload = Buffer.from('spans, encoded');

describe('LeanOtlpTransport: the OTLP export over the lean client, with the SDK retries', () => {
  it('posts the payload with the configured headers and the SDK user agent; gzip when configured', async () => {
    const collector = await scriptedCollector([{ status: 200 }]);
    const plain = transport(collector.url);
    assert.deepEqual(await plain.retrying.send(payload, 2000), { status: 'success', data: Buffer.from('ok') });
    const zipped = transport(collector.url, { compression: 'gzip' });
    assert.equal((await zipped.retrying.send(payload, 2000)).status, 'success');
    plain.lean.shutdown();
    zipped.lean.shutdown();
    await collector.close();
    const [first, second] = collector.received;
    assert.equal(first?.body.toString(), payload.toString());
    assert.equal(first?.headers['authorization'], 'Bearer t');
    assert.equal(first?.headers['content-type'], 'application/x-protobuf');
    assert.equal(first?.headers['user-agent'], `OTel-OTLP-Exporter-JavaScript/${sdk?.version}`);
    assert.equal(second?.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(second?.body as Buffer).toString(), payload.toString());
  });

  it('retries 503 (honouring Retry-After) until it succeeds; 500 fails at once with the status', async () => {
    const flaky = await scriptedCollector([{ status: 503, headers: { 'retry-after': '0' } }, { status: 503, headers: { 'retry-after': '0' } }, { status: 200 }]);
    const once = transport(flaky.url);
    assert.equal((await once.retrying.send(payload, 5000)).status, 'success');
    assert.equal(flaky.received.length, 3);
    once.lean.shutdown();
    await flaky.close();
    const broken = await scriptedCollector([{ status: 500 }]);
    const failing = transport(broken.url);
    const result = await failing.retrying.send(payload, 5000);
    assert.equal(result.status, 'failure');
    assert.equal((result as { error: { code?: number } }).error.code, 500);
    assert.equal(broken.received.length, 1, 'not retried');
    failing.lean.shutdown();
    await broken.close();
  });

  it('a collector that is down or silent is retryable and ends within the timeout; nothing escapes', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = transport(`http://127.0.0.1:${port}/v1/traces`);
    const refused = await down.lean.send(payload, 1000);
    assert.equal(refused.status, 'retryable');
    const started = Date.now();
    assert.equal((await down.retrying.send(payload, 300)).status, 'retryable', 'given up at the deadline');
    assert.ok(Date.now() - started < 3000);
    down.lean.shutdown();
    const accepted: net.Socket[] = [];
    const silent = net.createServer((socket) => accepted.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const slow = transport(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1/traces`);
    const timedOut = await slow.lean.send(payload, 150);
    assert.equal(timedOut.status, 'retryable');
    assert.match((timedOut as { error: Error }).error.message, /timed out/);
    slow.lean.shutdown();
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('HTTPS verifies the collector certificate: a self-signed one is refused before any request', async () => {
    const cert = makeSelfSignedCert();
    let requests = 0;
    const server = https.createServer({ key: cert.key, cert: cert.cert }, (_req, res) => {
      requests += 1;
      res.end();
    });
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const secure = transport(`https://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`);
    const result = await secure.lean.send(payload, 2000);
    assert.equal(result.status, 'failure', 'not retried, as the SDK does not retry a refused certificate');
    assert.match(String((result as { error?: { cause?: unknown; message: string } }).error?.cause ?? (result as { error?: Error }).error?.message), /self[- ]signed|certificate/i);
    assert.equal(requests, 0);
    secure.lean.shutdown();
    await new Promise((resolve) => server.close(resolve));
    cert.remove();
  });
});
