import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from '@gateway/testing';
import { correlationIdPolicy } from '../policies/correlation-id/correlation-id.policy';
import type { Exchange } from './exchange';
import { RequestDispatcher } from './request-dispatcher';
import { recordingLogger } from '../testing/spec-helpers.fixture';

test('a complete hook that throws is logged with the correlation id of its request, and the gateway goes on', async () => {
  const logger = recordingLogger();
  const correlation = correlationIdPolicy.create(undefined as never, undefined as never);
  const failing = (_exchange: Exchange): void => {
    throw new Error('hook broke');
  };
  const dispatcher = new RequestDispatcher({ onRequest: [(e) => correlation?.onRequest?.(e)], onResponse: null, onComplete: [failing] }, { handle: () => false }, logger);
  const server = http.createServer(dispatcher.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/any`;
    const res = await request(url, { headers: { 'x-correlation-id': 'corr-hook-1' } });
    assert.equal(res.status, 503, 'no route table yet');
    for (let i = 0; i < 100 && logger.lines.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const line = logger.lines.find((l) => l.message === 'complete hook failed');
    assert.ok(line !== undefined, JSON.stringify(logger.lines));
    assert.equal(line.fields['correlationId'], 'corr-hook-1');
    assert.match(String(line.fields['err']), /hook broke/);
    assert.equal((await request(url)).status, 503, 'still answering');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
