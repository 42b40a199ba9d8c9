import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { BREAKER_GROUP_WAIT_MS, BreakerOpeningGroups } from './breaker-opening-groups.service';
import { GATEWAY_EVENT, GATEWAY_EVENT_UPDATED, gatewayEventName, type AnyGatewayEvent } from './gateway-event';
import { GatewayEventPublisher } from './gateway-event-publisher.service';

const report = (id: string, breaker: string, instanceId: string): AnyGatewayEvent => ({
  id,
  type: 'circuit_breaker.opened',
  createdAt: '2026-11-27T03:00:00.000Z',
  data: { breaker, kind: 'route', routeIds: ['orders'], reason: 'failures', instanceId },
});

function setup(windowMs: number) {
  const emitter = new EventEmitter2();
  const groups = new BreakerOpeningGroups(new GatewayEventPublisher(emitter), emitter);
  groups.configure(windowMs);
  const all: AnyGatewayEvent[] = [];
  const ofKind: AnyGatewayEvent[] = [];
  const updated: AnyGatewayEvent[] = [];
  emitter.on(GATEWAY_EVENT, (event: AnyGatewayEvent) => all.push(event));
  emitter.on(gatewayEventName('circuit_breaker.opened'), (event: AnyGatewayEvent) => ofKind.push(event));
  emitter.on(GATEWAY_EVENT_UPDATED, (event: AnyGatewayEvent) => updated.push(event));
  return { groups, all, ofKind, updated };
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test('reports of one breaker from several data planes are one event with every instanceId, under the first report\'s id', async (t) => {
  const { groups, all, ofKind, updated } = setup(60_000);
  t.after(() => groups.onApplicationShutdown());
  groups.add(report('evt_a', 'route:orders', 'dp-1'));
  groups.add(report('evt_b', 'route:orders', 'dp-2'));
  groups.add(report('evt_c', 'route:orders', 'dp-2'));
  groups.add(report('evt_d', 'route:other', 'dp-1'));
  assert.equal(all.length, 0, 'nothing before the group wait');
  await wait(BREAKER_GROUP_WAIT_MS + 200);
  assert.deepEqual(all.map((e) => [e.id, e.data['instanceIds']]), [['evt_a', ['dp-1', 'dp-2']], ['evt_d', ['dp-1']]]);
  assert.deepEqual(ofKind.map((e) => e.id), ['evt_a', 'evt_d'], 'listeners of the kind get them too');
  // A late report inside the window updates the stored event only.
  groups.add(report('evt_e', 'route:orders', 'dp-3'));
  assert.equal(all.length, 2);
  assert.deepEqual(updated.map((e) => [e.id, e.data['instanceIds']]), [['evt_a', ['dp-1', 'dp-2', 'dp-3']]]);
});

test('after the window the same breaker opening again is a new event', async (t) => {
  const { groups, all } = setup(BREAKER_GROUP_WAIT_MS + 100);
  t.after(() => groups.onApplicationShutdown());
  groups.add(report('evt_a', 'route:orders', 'dp-1'));
  await wait(BREAKER_GROUP_WAIT_MS + 300);
  groups.add(report('evt_b', 'route:orders', 'dp-1'));
  await wait(BREAKER_GROUP_WAIT_MS + 200);
  assert.deepEqual(all.map((e) => e.id), ['evt_a', 'evt_b']);
});
