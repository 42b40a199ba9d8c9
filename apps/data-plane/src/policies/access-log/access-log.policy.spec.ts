import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROXY_DEFAULTS, type ProxySettings } from '@gateway/route-model';
import { createPinoLogger } from '../../adapters/pino-logger.adapter';
import type { PolicyEnvironment } from '../../engine/policy';
import { accessLogPolicy } from './access-log.policy';

const settings = (enabled: boolean): ProxySettings => ({ ...PROXY_DEFAULTS, trustedProxies: [], accessLog: { enabled } });
const environment = (level: string, enabled = false): PolicyEnvironment =>
  ({ settings: settings(enabled), services: { logger: createPinoLogger(level) } }) as unknown as PolicyEnvironment;

test('the access log is compiled into pipelines only when enabled or at debug: otherwise it costs nothing per request', () => {
  for (const level of ['info', 'warn', 'error', 'silent']) assert.equal(accessLogPolicy.create(undefined, environment(level)), null, level);
  for (const level of ['debug', 'trace']) assert.equal(typeof accessLogPolicy.create(undefined, environment(level))?.onComplete, 'function', level);
  for (const level of ['info', 'warn']) assert.equal(typeof accessLogPolicy.create(undefined, environment(level, true))?.onComplete, 'function', level);
});
