import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createGatewayPino } from './gateway-pino';
import { REDACTED, REDACTED_FIELD_NAMES } from './redacted-paths';
import { runWithCorrelationId } from './request-context';
import { SecretText } from './secret-text';

function capture(): { lines: Array<Record<string, unknown>>; text: () => string; write(line: string): void } {
  const raw: string[] = [];
  return {
    get lines() {
      return raw.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    text: () => raw.join(''),
    write: (line: string) => void raw.push(line),
  };
}

test('every redacted field name is censored at the top, one level down and in req/res headers of a real pino line', () => {
  const out = capture();
  const logger = createGatewayPino({ plane: 'data', destination: out });
  for (const name of REDACTED_FIELD_NAMES) {
    const value = `value-of-${name}-0123`;
    logger.info({ [name]: value, body: { [name]: value }, req: { headers: { [name]: value } }, res: { headers: { [name]: value } } }, `field ${name}`);
  }
  const lines = out.lines;
  assert.equal(lines.length, REDACTED_FIELD_NAMES.length);
  REDACTED_FIELD_NAMES.forEach((name, i) => {
    const line = lines[i] as Record<string, Record<string, Record<string, unknown>>>;
    assert.equal(line[name], REDACTED, name);
    assert.equal(line['body']![name], REDACTED, `body.${name}`);
    assert.equal(line['req']!['headers']![name], REDACTED, `req.headers.${name}`);
    assert.equal(line['res']!['headers']![name], REDACTED, `res.headers.${name}`);
    assert.ok(!out.text().includes(`value-of-${name}-`), `${name} leaked`);
  });
});

test('value-based redaction too: configured secrets and credential-shaped text in the message and in any field', () => {
  const out = capture();
  const logger = createGatewayPino({ plane: 'control', destination: out, secrets: new SecretText(['the-cluster-token-0123456789']) });
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
  logger.warn({ detail: 'token the-cluster-token-0123456789', nested: { header: 'Bearer abc.def.ghi' }, err: new Error(`bad ${jwt}`) }, 'Authorization: Basic dXNlcjpodW50ZXIy from redis://user:p4ssw0rd@127.0.0.1:6379');
  const text = out.text();
  for (const secret of ['the-cluster-token-0123456789', 'abc.def.ghi', jwt, 'dXNlcjpodW50ZXIy', 'p4ssw0rd']) assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
  assert.match(text, /127\.0\.0\.1:6379/);
});

test('one line format: numeric level, ISO time, msg, service, plane, pid; the correlation id of the request being handled', () => {
  const out = capture();
  const logger = createGatewayPino({ plane: 'cli', destination: out }).child({ component: 'redis-bus' });
  runWithCorrelationId('corr-1234', () => logger.info({ routeId: 'r1' }, 'inside a request'));
  logger.info({}, 'outside');
  const [inside, outside] = out.lines;
  assert.deepEqual({ ...inside, time: undefined }, { level: 30, time: undefined, service: 'gateway', plane: 'cli', pid: process.pid, component: 'redis-bus', correlationId: 'corr-1234', routeId: 'r1', msg: 'inside a request' });
  assert.ok(!Number.isNaN(Date.parse(String(inside!['time']))));
  assert.equal(outside!['correlationId'], undefined);
});

test('the recorder keeps info lines when the console is quieter; LOG_LEVEL=silent leaves the console empty', () => {
  const console = capture();
  const recorder = capture();
  const logger = createGatewayPino({ plane: 'control', level: 'silent', destination: console, recorder });
  logger.debug({}, 'too verbose');
  logger.info({}, 'kept');
  assert.equal(console.text(), '');
  assert.deepEqual(recorder.lines.map((l) => l['msg']), ['kept']);
  const chatty = capture();
  createGatewayPino({ plane: 'control', level: 'debug', destination: chatty, recorder: capture() }).debug({}, 'shown');
  assert.deepEqual(chatty.lines.map((l) => l['msg']), ['shown']);
});
