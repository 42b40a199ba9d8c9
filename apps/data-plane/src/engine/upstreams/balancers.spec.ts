import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Candidates } from './balancer';
import { ConsistentHashBalancer } from './consistent-hash.balancer';
import { LeastConnectionsBalancer } from './least-connections.balancer';
import { RoundRobinBalancer } from './round-robin.balancer';
import { UpstreamEndpoint, type TargetAddress } from './upstream-endpoint';

const noop = { inc: () => undefined };

function endpoint(index: number, weight = 100, host = `10.0.0.${index + 1}`): UpstreamEndpoint {
  const target: TargetAddress = { index, origin: `http://${host}:80`, secure: false, hostname: host, port: 80, hostPort: `${host}:80`, weight };
  return new UpstreamEndpoint(target, undefined, { success: noop, failure: noop });
}

const ALL: Candidates = { now: 0, tried: undefined, healthOnly: true };

describe('smooth weighted round-robin', () => {
  it('interleaves by weight as nginx does (5:1:1 -> a a b a c a a)', () => {
    const [a, b, c] = [endpoint(0, 5), endpoint(1, 1), endpoint(2, 1)];
    const balancer = new RoundRobinBalancer([a!, b!, c!]);
    const picks = Array.from({ length: 14 }, () => balancer.pick(ALL)?.target.index);
    assert.deepEqual(picks, [0, 0, 1, 0, 2, 0, 0, 0, 0, 1, 0, 2, 0, 0]);
  });

  it('skips ejected and already tried endpoints, and has none to give when all are out', () => {
    const endpoints = [endpoint(0), endpoint(1), endpoint(2)];
    const balancer = new RoundRobinBalancer(endpoints);
    endpoints[1]!.ejectedUntil = 1000;
    const seen = new Set(Array.from({ length: 6 }, () => balancer.pick({ now: 10, tried: [endpoints[0]!], healthOnly: true })?.target.index));
    assert.deepEqual([...seen], [2]);
    endpoints[2]!.activelyHealthy = false;
    assert.equal(balancer.pick({ now: 10, tried: [endpoints[0]!], healthOnly: true }), undefined);
    assert.equal(balancer.pick({ now: 10, tried: undefined, healthOnly: false })?.target.index !== undefined, true);
  });
});

describe('least connections', () => {
  it('picks the endpoint with the fewest requests in flight for its weight', () => {
    const endpoints = [endpoint(0), endpoint(1, 200), endpoint(2)];
    const balancer = new LeastConnectionsBalancer(endpoints);
    endpoints[0]!.inFlight = 3;
    endpoints[1]!.inFlight = 5;
    endpoints[2]!.inFlight = 1;
    assert.equal(balancer.pick(ALL)?.target.index, 2, '(1+1)/100 is the least');
    endpoints[2]!.inFlight = 3;
    // (5+1)/200 = 0.03 beats (3+1)/100 = 0.04: the heavier endpoint takes more.
    assert.equal(balancer.pick(ALL)?.target.index, 1);
  });

  it('spreads ties instead of always taking the first', () => {
    const balancer = new LeastConnectionsBalancer([endpoint(0), endpoint(1), endpoint(2)]);
    const seen = new Set(Array.from({ length: 6 }, () => balancer.pick(ALL)?.target.index));
    assert.equal(seen.size, 3);
  });
});

describe('ring hash', () => {
  const keys = Array.from({ length: 20_000 }, (_, i) => `client-${i}`);
  const owners = (balancer: ConsistentHashBalancer): string[] => keys.map((k) => balancer.pick(ALL, k)?.key ?? '');

  it('sends a key to the same endpoint every time, and spreads keys by weight', () => {
    const endpoints = [endpoint(0), endpoint(1), endpoint(2, 200)];
    const first = owners(new ConsistentHashBalancer(endpoints));
    assert.deepEqual(owners(new ConsistentHashBalancer([...endpoints].reverse())), first, 'the ring does not depend on list order');
    const share = (i: number): number => first.filter((key) => key === endpoints[i]!.key).length / keys.length;
    assert.ok(Math.abs(share(2) - 0.5) < 0.08, `weight 200 of 400 got ${share(2)}`);
    assert.ok(Math.abs(share(0) - 0.25) < 0.08, `weight 100 of 400 got ${share(0)}`);
  });

  it('remaps about 1/N of the keys when an endpoint joins, all of them to the newcomer', () => {
    const endpoints = Array.from({ length: 4 }, (_, i) => endpoint(i));
    const before = owners(new ConsistentHashBalancer(endpoints));
    const joined = endpoint(4);
    const after = owners(new ConsistentHashBalancer([...endpoints, joined]));
    const moved = before.filter((owner, i) => owner !== after[i]);
    const fraction = moved.length / keys.length;
    assert.ok(fraction > 0.1 && fraction < 0.3, `expected about 1/5 moved, got ${fraction}`);
    assert.ok(
      before.every((owner, i) => owner === after[i] || after[i] === joined.key),
      'a key that moved went to the new endpoint',
    );
  });

  it('passes the keys of an unavailable endpoint to the next one on the ring, leaving the others in place', () => {
    const endpoints = [endpoint(0), endpoint(1), endpoint(2)];
    const balancer = new ConsistentHashBalancer(endpoints);
    const before = owners(balancer);
    endpoints[1]!.ejectedUntil = Number.MAX_SAFE_INTEGER;
    const after = owners(balancer);
    assert.ok(after.every((owner) => owner !== endpoints[1]!.key));
    assert.ok(before.every((owner, i) => owner === endpoints[1]!.key || owner === after[i]));
  });
});
