import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OutlierDetector } from './outlier-detector';
import { UpstreamEndpoint } from './upstream-endpoint';

const noop = { inc: () => undefined };
const endpoints = (count: number): UpstreamEndpoint[] =>
  Array.from(
    { length: count },
    (_, i) => new UpstreamEndpoint({ index: i, origin: `http://h${i}`, secure: false, hostname: `h${i}`, port: 80, hostPort: `h${i}`, weight: 100 }, undefined, { success: noop, failure: noop }),
  );

describe('outlier detection', () => {
  const settings = { enabled: true, consecutiveFailures: 3, baseEjectionTime: 1000, maxEjectionTime: 2500, maxEjectionPercent: 10 };

  it('ejects after consecutive failures for base times ejections, capped; a success resets the count', () => {
    const list = endpoints(2);
    const target = list[0]!;
    const detector = new OutlierDetector(settings);
    detector.record(target, true, list, 0);
    detector.record(target, true, list, 0);
    detector.record(target, false, list, 0);
    assert.equal(detector.record(target, true, list, 0), false, 'the success started the count again');
    detector.record(target, true, list, 0);
    assert.equal(detector.record(target, true, list, 0), true);
    assert.equal(target.ejectedUntil, 1000);
    for (let i = 0; i < 3; i += 1) detector.record(target, true, list, 1500);
    assert.equal(target.ejectedUntil, 3500, 'second ejection: 2 x base');
    for (let i = 0; i < 3; i += 1) detector.record(target, true, list, 4000);
    assert.equal(target.ejectedUntil, 6500, 'third: capped at maxEjectionTime');
    for (let i = 0; i < 3; i += 1) detector.record(target, true, list, 10_000);
    assert.equal(target.ejectedUntil, 11_000, 'back for longer than maxEjectionTime: starts over at base');
  });

  it('ejects at most maxEjectionPercent of the endpoints, but always one', () => {
    const list = endpoints(4);
    const detector = new OutlierDetector(settings);
    for (const endpoint of list) for (let i = 0; i < 3; i += 1) detector.record(endpoint, true, list, 0);
    assert.equal(list.filter((e) => e.isEjected(0)).length, 1);
    const half = new OutlierDetector({ ...settings, maxEjectionPercent: 50 });
    const more = endpoints(4);
    for (const endpoint of more) for (let i = 0; i < 3; i += 1) half.record(endpoint, true, more, 0);
    assert.equal(more.filter((e) => e.isEjected(0)).length, 2);
  });

  it('never ejects when disabled', () => {
    const list = endpoints(2);
    const detector = new OutlierDetector({ ...settings, enabled: false });
    for (let i = 0; i < 10; i += 1) assert.equal(detector.record(list[0]!, true, list, 0), false);
  });
});
