import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPinoLogger } from '../../adapters/pino-logger.adapter';
import type { PolicyEnvironment } from '../../engine/policy';
import { accessLogPolicy } from './access-log.policy';

const environment = (level: string): PolicyEnvironment => ({ services: { logger: createPinoLogger(level) } }) as unknown as PolicyEnvironment;

test('the access log is compiled into pipelines only at debug or trace: at info and quieter it costs nothing per request', () => {
  for (const level of ['info', 'warn', 'error', 'silent']) assert.equal(accessLogPolicy.create(undefined, environment(level)), null, level);
  for (const level of ['debug', 'trace']) assert.equal(typeof accessLogPolicy.create(undefined, environment(level))?.onComplete, 'function', level);
});
