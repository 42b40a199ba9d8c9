import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redact, redactText } from './context-redaction';

test('secrets are redacted by shape in any text; timestamps and plain words stay', () => {
  const cases: Array<[string, string]> = [
    ['Authorization: Bearer abcdef123456', 'Authorization: [REDACTED] [REDACTED]'],
    ['sent Bearer abcdef123456', 'sent Bearer [REDACTED]'],
    ['token=abc123def; next', 'token=[REDACTED]; next'],
    ['api_key: "sk-live-aaaaaaaa"', 'api_key: "[REDACTED]"'],
    ['key sk-live-0123456789 leaked', 'key [REDACTED-KEY] leaked'],
    ['jwt eyJhbGciOi.eyJzdWIiOiIx.c2lnbmF0dXJl here', 'jwt [REDACTED-JWT] here'],
    ['hash 0123456789abcdef0123456789abcdef', 'hash [REDACTED-HEX]'],
    ['from 203.0.113.7 and 2001:db8:0:0:0:0:0:1', 'from [ADDRESS] and [ADDRESS]'],
    ['at 2026-01-01T06:22:26.000Z error rate 0.4', 'at 2026-01-01T06:22:26.000Z error rate 0.4'],
  ];
  for (const [input, expected] of cases) assert.equal(redactText(input, false), expected, input);
  assert.equal(redactText('from 203.0.113.7', true), 'from 203.0.113.7');
});

test('secret and address keys are dropped at any depth', () => {
  const input = { route: 'users', context: { client_ip: '1.2.3.4', apiKey: 'k', nested: [{ password: 'p', cookie: 'c', ok: 'yes' }] }, remoteAddress: 'x' };
  assert.deepEqual(redact(input, false), { route: 'users', context: { nested: [{ ok: 'yes' }] } });
  assert.deepEqual(redact(input, true), { route: 'users', context: { client_ip: '1.2.3.4', nested: [{ ok: 'yes' }] }, remoteAddress: 'x' });
});
