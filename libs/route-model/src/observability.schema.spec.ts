import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { validateProxyConfig } from './validate-proxy-config';

function proxyOf(proxy: unknown) {
  const result = validateProxyConfig({ version: '1.0.0', proxy });
  if (!result.ok) assert.fail(JSON.stringify(result.errors));
  return result.value.proxy;
}

function fieldsOf(proxy: unknown): string[] {
  const result = validateProxyConfig({ version: '1.0.0', proxy });
  if (result.ok) assert.fail('expected errors');
  return result.errors.map((e) => `${e.field}: ${e.message}`);
}

describe('proxy.accessLog and proxy.tracing', () => {
  it('keeps what is given and fills the rest', () => {
    const proxy = proxyOf({
      accessLog: { enabled: true },
      tracing: { enabled: true, samplingRatio: 0.1, otlp: { enabled: true, endpoint: 'http://127.0.0.1:4318/v1/traces', headersFromEnv: { authorization: 'OTLP_TOKEN' } } },
    });
    assert.deepEqual(proxy.accessLog, { enabled: true });
    assert.deepEqual(proxy.tracing, {
      enabled: true,
      samplingRatio: 0.1,
      otlp: {
        enabled: true,
        endpoint: 'http://127.0.0.1:4318/v1/traces',
        headersFromEnv: { authorization: 'OTLP_TOKEN' },
        serviceName: 'api-gateway',
        timeout: 10000,
        maxQueueSize: 2048,
        maxExportBatchSize: 512,
        scheduledDelay: 5000,
      },
    });
  });

  it('names the field of every bad value', () => {
    const errors = fieldsOf({
      accessLog: { enabled: 'yes' },
      tracing: { samplingRatio: 1.5, otlp: { endpoint: 'ftp://x', headersFromEnv: { 'bad header': 'X', authorization: 'not a name' }, maxQueueSize: 0 } },
    });
    for (const field of ['proxy.accessLog.enabled', 'proxy.tracing.samplingRatio', 'proxy.tracing.otlp.endpoint', 'proxy.tracing.otlp.headersFromEnv', 'proxy.tracing.otlp.headersFromEnv.authorization', 'proxy.tracing.otlp.maxQueueSize']) {
      assert.ok(errors.some((e) => e.startsWith(`${field}`)), `${field} in ${JSON.stringify(errors)}`);
    }
  });

  it('refuses export without tracing, without an endpoint, or with a batch larger than the queue', () => {
    assert.deepEqual(fieldsOf({ tracing: { otlp: { enabled: true, endpoint: 'http://c:4318/v1/traces' } } }), ['proxy.tracing.otlp.enabled: proxy.tracing.otlp.enabled needs proxy.tracing.enabled: true']);
    assert.deepEqual(fieldsOf({ tracing: { enabled: true, otlp: { enabled: true } } }), ['proxy.tracing.otlp.endpoint: proxy.tracing.otlp.endpoint is required when proxy.tracing.otlp.enabled is true']);
    assert.deepEqual(fieldsOf({ tracing: { otlp: { maxQueueSize: 10, maxExportBatchSize: 11 } } }), [
      'proxy.tracing.otlp.maxExportBatchSize: proxy.tracing.otlp.maxExportBatchSize must not exceed proxy.tracing.otlp.maxQueueSize',
    ]);
  });

  it('never sends one of the gateway\'s own secrets to a collector', () => {
    const errors = fieldsOf({ tracing: { otlp: { headersFromEnv: { authorization: 'CLUSTER_TOKEN' } } } });
    assert.match(errors.join('\n'), /proxy\.tracing\.otlp\.headersFromEnv\.authorization may not name CLUSTER_TOKEN/);
  });
});
