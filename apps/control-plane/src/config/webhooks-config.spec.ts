import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextRetryDelayMs, parseWebhooksConfig } from './webhooks-config';

test('defaults: Svix schedule (8 attempts), 15 s timeout, disabled after 5 days', () => {
  const problems: Array<{ variable: string; message: string }> = [];
  const config = parseWebhooksConfig({}, problems);
  assert.deepEqual(problems, []);
  assert.deepEqual(config.retryDelaysMs, [5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
  assert.equal(config.timeoutMs, 15_000);
  assert.equal(config.disableAfterMs, 5 * 86_400_000);
});

test('each bad variable is named', () => {
  const problems: Array<{ variable: string; message: string }> = [];
  parseWebhooksConfig({ WEBHOOK_RETRY_DELAYS: '5s,soon', WEBHOOK_TIMEOUT: '0s', WEBHOOK_DISABLE_AFTER: 'forever' }, problems);
  assert.deepEqual(problems.map((p) => p.variable), ['WEBHOOK_RETRY_DELAYS', 'WEBHOOK_TIMEOUT', 'WEBHOOK_DISABLE_AFTER']);
});

test('retry delay: the schedule with +/-10% jitter, a longer Retry-After wins, none after the last', () => {
  const config = { retryDelaysMs: [1000, 10_000] };
  assert.equal(nextRetryDelayMs(config, 1, undefined, () => 0), 900);
  assert.equal(nextRetryDelayMs(config, 1, undefined, () => 1), 1100);
  assert.equal(nextRetryDelayMs(config, 2, undefined, () => 0.5), 10_000);
  assert.equal(nextRetryDelayMs(config, 1, 60_000, () => 0.5), 60_000);
  assert.equal(nextRetryDelayMs(config, 3, undefined), undefined);
});
