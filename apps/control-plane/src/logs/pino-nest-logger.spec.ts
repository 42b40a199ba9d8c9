import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@nestjs/common';
import { createGatewayPino } from '@gateway/logging/gateway-pino';
import { PinoNestLogger } from './pino-nest-logger';

function capture(level = 'trace'): { logger: PinoNestLogger; lines: () => Array<Record<string, unknown>> } {
  const raw: string[] = [];
  const logger = new PinoNestLogger(createGatewayPino({ plane: 'control', level, destination: { write: (line) => void raw.push(line) } }));
  return { logger, lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

test('Nest calls become pino lines: the context is the component, an object message is fields, an error keeps its stack', () => {
  const { logger, lines } = capture();
  logger.log('login of a@b.c', 'Auth');
  logger.warn({ msg: 'POST /api/x 401', correlationId: 'req-1', status: 401 }, 'HTTP');
  logger.error('boom', 'Error: boom\n    at handler (/app/x.js:1:2)', 'ExceptionsHandler');
  logger.error(new Error('broken'), 'Db');
  logger.verbose('detail');
  const [login, request, failed, thrown, verbose] = lines();
  assert.deepEqual([login!['level'], login!['component'], login!['msg']], [30, 'Auth', 'login of a@b.c']);
  assert.deepEqual([request!['level'], request!['component'], request!['correlationId'], request!['status'], request!['msg']], [40, 'HTTP', 'req-1', 401, 'POST /api/x 401']);
  assert.deepEqual([failed!['level'], failed!['component'], failed!['msg']], [50, 'ExceptionsHandler', 'boom']);
  assert.match(String(failed!['stack']), /at handler/);
  assert.deepEqual([thrown!['component'], thrown!['msg']], ['Db', 'broken']);
  assert.match(JSON.stringify(thrown!['err']), /broken/);
  assert.deepEqual([verbose!['level'], verbose!['component']], [10, undefined]);
});

test('through Nest\'s own Logger: its padded error() and the start-up chatter demoted to debug', () => {
  const { logger, lines } = capture('info');
  Logger.overrideLogger(logger);
  try {
    new Logger('InstanceLoader').log('AppModule dependencies initialized');
    new Logger('HTTP').error({ msg: 'GET /api/x 500', correlationId: 'req-2' });
  } finally {
    Logger.overrideLogger(true);
  }
  const all = lines();
  assert.equal(all.length, 1, 'InstanceLoader is debug: below info');
  assert.deepEqual([all[0]!['level'], all[0]!['component'], all[0]!['correlationId'], all[0]!['args']], [50, 'HTTP', 'req-2', undefined]);
});
