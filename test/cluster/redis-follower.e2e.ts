import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, startTextUpstream, type LoopbackUpstream } from '@gateway/testing';
import { startFollowingDataPlane, type FollowingDataPlane } from './following-data-plane';
import { RedisTestBus } from './redis-test-bus';
import { eventually, StandInControlPlane } from './stand-in-control-plane';

/*
 * Two real data planes (in-process start()) following a STAND-IN control plane over a real Redis
 * (pub/sub through the test-only RESP bus in ./redis-test-bus.ts, a unique channel prefix per run)
 * and its loopback HTTP snapshot endpoint, as `--role data-plane` will. Redis down: these fail.
 */
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const TOKEN = 'redis-follower-cluster-token-0123456789';

type Plane = FollowingDataPlane<RedisTestBus>;

describe('data planes following a control plane (stand-in) over real Redis', () => {
  const prefix = `test:dp-sync:${process.pid}:${Date.now()}:`;
  let upstream: LoopbackUpstream;
  let cp: StandInControlPlane;
  let cpUrl: string;
  const planes: Plane[] = [];

  const text = async (url: string): Promise<string> => {
    const res = await request(url, { timeoutMs: 3000 });
    return `${res.status} ${res.status === 200 ? res.text : ''}`.trim();
  };
  const everyPlaneServes = (p: string, expected: string) => async () => (await Promise.all(planes.map((dp) => text(`${dp.url}${p}`)))).every((t) => t === expected);

  before(async () => {
    upstream = await startTextUpstream('up');
    cp = new StandInControlPlane(await RedisTestBus.connect(REDIS_URL, prefix));
    await cp.upsert({ id: 'base', path: '/base', upstream: upstream.origin });
    cpUrl = await cp.listen(TOKEN);
    for (let i = 0; i < 2; i += 1) planes.push(await startFollowingDataPlane(await RedisTestBus.connect(REDIS_URL, prefix), cpUrl, TOKEN));
  });

  after(async () => {
    for (const dp of planes) await dp.close();
    await cp?.close();
    await upstream?.close();
  });

  test('a route published through Redis is served by both data planes within 1 s, a deleted one stops', async () => {
    assert.ok(await everyPlaneServes('/base', '200 up')());
    await cp.upsert({ id: 'r', path: '/r', upstream: upstream.origin });
    await eventually(everyPlaneServes('/r', '200 up'), 'new route on both', 1000);
    await cp.remove('r');
    await eventually(everyPlaneServes('/r', '404'), 'deleted route gone on both', 1000);
  });

  test('a subscriber connection cut by Redis reconnects and resynchronizes from a snapshot', async () => {
    const [first] = planes as [Plane];
    const reconnectsBefore = first.bus.reconnects;
    // Published while the connection is down: lost for this subscriber, as pub/sub loses it.
    await first.bus.killSubscriberConnection();
    await cp.upsert({ id: 'while-cut', path: '/while-cut', upstream: upstream.origin });
    await eventually(() => first.bus.reconnects > reconnectsBefore, 'subscriber reconnected');
    await eventually(everyPlaneServes('/while-cut', '200 up'), 'both data planes converge', 2000);
  });

  test('control plane away: 0 failed proxied requests on either data plane; converges within 2 s after it returns', async () => {
    let stop = false;
    const failures: string[] = [];
    const loop = async (url: string): Promise<void> => {
      while (!stop) {
        try {
          const res = await request(`${url}/base`, { timeoutMs: 3000 });
          if (res.status !== 200) failures.push(`${res.status}`);
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    const loops = planes.map((dp) => loop(dp.url));
    const port = Number(new URL(cpUrl).port);
    cp.setDown(true);
    await cp.stopListening();
    await cp.upsert({ id: 'after-outage', path: '/after-outage', upstream: upstream.origin }, { publish: false });
    await new Promise((r) => setTimeout(r, 3500)); // past the silence window: fetches fail and are retried
    assert.ok(await everyPlaneServes('/after-outage', '404')());
    await cp.listen(TOKEN, port);
    cp.setDown(false);
    await eventually(everyPlaneServes('/after-outage', '200 up'), 'converged after the control plane returned', 2000);
    stop = true;
    await Promise.all(loops);
    assert.deepEqual(failures, []);
  });
});
