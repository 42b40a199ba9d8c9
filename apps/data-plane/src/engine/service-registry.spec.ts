import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PolicyFactory } from './policy';
import { wirePolicies } from './policy-wiring';
import type { CounterDefinition, CounterHandle, GatewayMetrics } from './ports';
import { serviceKey, ServiceNotWiredError, ServiceRegistry } from './service-registry';

const CLOCK = serviceKey<() => number>('test.clock');
const NAMES = serviceKey<string[]>('test.names');

/** Records which counters were registered; nothing else of the port is used by wirePolicies. */
function recordingMetrics(): { metrics: GatewayMetrics; registered: string[] } {
  const registered: string[] = [];
  const counter = (definition: CounterDefinition): CounterHandle => {
    registered.push(definition.name);
    return { labels: () => ({ inc: () => undefined }) };
  };
  return { metrics: { counter } as unknown as GatewayMetrics, registered };
}

function factory(key: string, extra: Partial<PolicyFactory>): PolicyFactory {
  return { key, scope: 'route', order: 1, create: () => null, ...extra };
}

test('a provided service is returned as given; find is undefined for one never provided', () => {
  const clock = (): number => 42;
  const registry = new ServiceRegistry().provide(CLOCK, clock);
  assert.equal(registry.get(CLOCK), clock);
  assert.equal(registry.find(NAMES), undefined);
  assert.throws(() => registry.get(NAMES), (error: unknown) => error instanceof ServiceNotWiredError && /'test\.names'/.test(error.message));
  assert.throws(() => registry.provide(CLOCK, clock), /provided twice/);
});

test('wirePolicies refuses to boot when a declared service is missing, naming the policy and the key', () => {
  const { metrics } = recordingMetrics();
  const registry = new ServiceRegistry().provide(CLOCK, () => 1);
  const policies = [factory('uses-clock', { services: [CLOCK] }), factory('uses-names', { services: [CLOCK, NAMES] })];
  assert.throws(() => wirePolicies(policies, registry, metrics), /uses-names needs 'test\.names'/);
  registry.provide(NAMES, []);
  assert.doesNotThrow(() => wirePolicies(policies, registry, metrics));
});

test('wirePolicies registers every declared counter once at boot', () => {
  const { metrics, registered } = recordingMetrics();
  const hits: CounterDefinition = { name: 'test_hits_total', help: 'h', labelNames: ['route'] };
  const misses: CounterDefinition = { name: 'test_misses_total', help: 'm', labelNames: ['route'] };
  wirePolicies([factory('a', { metrics: [hits] }), factory('b', { metrics: [misses] }), factory('c', {})], new ServiceRegistry(), metrics);
  assert.deepEqual(registered, ['test_hits_total', 'test_misses_total']);
});
