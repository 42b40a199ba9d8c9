import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeUpstream, upstreamTargets } from './normalize-upstream';
import type { UpstreamDefinition } from './proxy-config.types';

function ok(input: unknown): UpstreamDefinition {
  const result = normalizeUpstream(input, 'upstreams[0]');
  if (!result.ok) assert.fail(`expected a valid upstream, got ${JSON.stringify(result.errors)}`);
  return result.value;
}

function errors(input: unknown): Array<[string, string]> {
  const result = normalizeUpstream(input, 'upstreams[4]');
  if (result.ok) assert.fail(`expected errors, got ${JSON.stringify(result.value)}`);
  return result.errors.map((e) => [e.field, e.message]);
}

describe('normalizeUpstream', () => {
  it('folds the url shorthand into one target of weight 100 and fills the defaults', () => {
    assert.deepEqual(ok({ name: 'b', url: 'http://b:9000/api' }), {
      name: 'b',
      targets: [{ url: 'http://b:9000/api', weight: 100 }],
      balancing: { algorithm: 'round-robin' },
      dnsRefreshInterval: 30000,
    });
  });

  it('keeps targets, weights and a consistent hash on the client address by default', () => {
    const upstream = ok({
      name: 'b',
      targets: [{ url: 'http://10.0.0.1:80' }, { url: 'http://10.0.0.2:80', weight: 300 }],
      balancing: { algorithm: 'consistent-hash' },
      outlierDetection: { consecutiveFailures: 3 },
      dnsRefreshInterval: 5000,
    });
    assert.deepEqual(upstream.targets, [
      { url: 'http://10.0.0.1:80', weight: 100 },
      { url: 'http://10.0.0.2:80', weight: 300 },
    ]);
    assert.deepEqual(upstream.balancing, { algorithm: 'consistent-hash', hashOn: 'client-address' });
    assert.deepEqual(upstream.outlierDetection, { enabled: true, consecutiveFailures: 3, baseEjectionTime: 30000, maxEjectionTime: 300000, maxEjectionPercent: 10 });
    assert.equal(upstream.dnsRefreshInterval, 5000);
  });

  it('requires exactly one of url and targets', () => {
    assert.deepEqual(errors({ name: 'b' }), [['upstreams[4].url', 'url or targets is required']]);
    assert.deepEqual(errors({ name: 'b', url: 'http://a', targets: [{ url: 'http://c' }] }), [['upstreams[4].targets', 'targets cannot be given with url; list the url as a target']]);
    assert.deepEqual(errors({ name: 'b', targets: [] }), [['upstreams[4].targets', 'targets must not be empty']]);
  });

  it('names the target field: bad URL, weight out of range, duplicates, another scheme or path', () => {
    assert.deepEqual(errors({ name: 'b', targets: [{ url: 'ftp://x' }, { url: 'http://y', weight: 0 }, { weight: 5 }] }), [
      ['upstreams[4].targets[0].url', 'Invalid URL'],
      ['upstreams[4].targets[1].weight', 'targets[1].weight must be between 1 and 1000'],
      ['upstreams[4].targets[2].url', 'targets[2].url is required'],
    ]);
    assert.deepEqual(errors({ name: 'b', targets: [{ url: 'ftp://x' }, { url: 'http://y/v1', weight: 0 }, { url: 'http://z/v2' }] }), [
      ['upstreams[4].targets[0].url', 'Invalid URL'],
      ['upstreams[4].targets[1].weight', 'targets[1].weight must be between 1 and 1000'],
      ['upstreams[4].targets[2].url', "every target of an upstream has the scheme and path of targets[1] (http:, '/v1')"],
    ]);
    assert.deepEqual(errors({ name: 'b', targets: [{ url: 'http://a/v1' }, { url: 'http://a:80/v1' }, { url: 'http://c/v2' }, { url: 'https://d/v1' }] }), [
      ['upstreams[4].targets[1].url', 'Duplicate target http://a'],
      ['upstreams[4].targets[2].url', "every target of an upstream has the scheme and path of targets[0] (http:, '/v1')"],
      ['upstreams[4].targets[3].url', "every target of an upstream has the scheme and path of targets[0] (http:, '/v1')"],
    ]);
  });

  it('checks balancing and outlier-detection combinations', () => {
    assert.deepEqual(errors({ name: 'b', url: 'http://a', balancing: { algorithm: 'consistent-hash', hashOn: 'header' } }), [
      ['upstreams[4].balancing.hashKey', 'balancing.hashKey is required when balancing.hashOn is header'],
    ]);
    assert.deepEqual(errors({ name: 'b', url: 'http://a', balancing: { hashOn: 'cookie', hashKey: 'sid' } }), [
      ['upstreams[4].balancing.hashOn', 'balancing.hashOn and balancing.hashKey apply only to algorithm consistent-hash'],
    ]);
    assert.deepEqual(errors({ name: 'b', url: 'http://a', balancing: { algorithm: 'random' }, outlierDetection: { baseEjectionTime: 60000, maxEjectionTime: 1000, maxEjectionPercent: 101 } }), [
      ['upstreams[4].balancing.algorithm', 'balancing.algorithm must be one of: round-robin, least-connections, consistent-hash'],
      ['upstreams[4].outlierDetection.maxEjectionPercent', 'outlierDetection.maxEjectionPercent must be between 0 and 100'],
      ['upstreams[4].outlierDetection.maxEjectionTime', 'outlierDetection.maxEjectionTime must be at least outlierDetection.baseEjectionTime'],
    ]);
    assert.deepEqual(errors({ name: 'b', url: 'http://a', dnsRefreshInterval: 10 }), [['upstreams[4].dnsRefreshInterval', 'dnsRefreshInterval must be between 1000 and 3600000']]);
    assert.deepEqual(errors('b'), [['upstreams[4]', 'upstream must be an object']]);
  });

  it('reads targets of an upstream stored before targets existed', () => {
    assert.deepEqual(upstreamTargets({ url: 'http://old' }), [{ url: 'http://old', weight: 100 }]);
    assert.deepEqual(upstreamTargets({ targets: [{ url: 'http://new', weight: 7 }] }), [{ url: 'http://new', weight: 7 }]);
  });
});
