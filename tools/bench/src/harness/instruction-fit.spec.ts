import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { InstructionCount } from './callgrind';
import { chargedPerRequest, fitProcess, fitRequestsAndSeconds } from './instruction-fit';

const count = (all: number, gc = 0): InstructionCount => ({ all, main: all, timers: 0, compile: 0, gc });

test('recovers a per-request and a per-second cost from batches whose seconds per request differ', () => {
  // 150k a request, 700k a second, batches of three sizes at varying speeds, an idle spell.
  const points = [
    { requests: 125, seconds: 1.9 },
    { requests: 250, seconds: 2.4 },
    { requests: 500, seconds: 6.1 },
    { requests: 125, seconds: 0.8 },
    { requests: 0, seconds: 10 },
  ].map((p) => ({ ...p, instructions: 150_000 * p.requests + 700_000 * p.seconds }));
  const fit = fitRequestsAndSeconds(points);
  assert.ok(Math.abs(fit.perRequest - 150_000) < 1e-3, `per request ${fit.perRequest}`);
  assert.ok(Math.abs(fit.perSecond - 700_000) < 1e-3, `per second ${fit.perSecond}`);
  assert.ok(fit.r2 > 0.999999);
});

test('gives no fit when seconds are proportional to requests (the two cannot be told apart)', () => {
  const points = [125, 250, 500].map((requests) => ({ requests, seconds: requests * 0.01, instructions: requests * 160_000 }));
  const fit = fitRequestsAndSeconds(points);
  assert.ok(Number.isNaN(fit.perRequest) && Number.isNaN(fit.perSecond));
});

test('a process: the collector out of the points, back in per request; charged at a request rate', () => {
  // A major collection of 80 M in one batch would pull a least-squares fit; here it is added as its mean a request.
  const batches = [
    { requests: 125, seconds: 1.5, count: count(125 * 150_000 + 1.5 * 700_000 + 1_000_000, 1_000_000) },
    { requests: 250, seconds: 3.5, count: count(250 * 150_000 + 3.5 * 700_000 + 80_000_000, 80_000_000) },
    { requests: 500, seconds: 5.0, count: count(500 * 150_000 + 5.0 * 700_000 + 4_000_000, 4_000_000) },
  ];
  const f = fitProcess({ batches, collections: [], idle: { requests: 0, seconds: 10, count: count(7_000_000) } });
  const gcPerRequest = 85_000_000 / 875;
  assert.ok(Math.abs(f.gcPerRequest - gcPerRequest) < 1e-6);
  assert.ok(Math.abs(f.perRequest - (150_000 + gcPerRequest)) < 1e-3, `per request ${f.perRequest}`);
  assert.ok(Math.abs(f.perSecond - 700_000) < 1e-3);
  assert.ok(Math.abs(chargedPerRequest(f, 5000) - (150_000 + gcPerRequest + 140)) < 1e-3);
});
