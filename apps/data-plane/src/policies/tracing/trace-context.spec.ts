import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RootTraceparents, rootTraceparentsFor, samplingThreshold } from './root-traceparents';
import { boundTraceState, formatTraceparent, gatewayHop, parseTraceparent, rootSampler, TRACESTATE_MAX_LENGTH, TRACESTATE_MAX_MEMBERS } from './trace-context';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const always = new RootTraceparents(samplingThreshold(1));
const never = new RootTraceparents(samplingThreshold(0));

describe('parseTraceparent (W3C Trace Context level 1)', () => {
  it('reads version 00: ids and the sampled bit', () => {
    assert.deepEqual(parseTraceparent(`00-${TRACE}-${PARENT}-01`), { traceId: TRACE, parentId: PARENT, sampled: true });
    assert.deepEqual(parseTraceparent(`00-${TRACE}-${PARENT}-00`), { traceId: TRACE, parentId: PARENT, sampled: false });
    // Unknown flag bits are ignored; only bit 0 says sampled.
    assert.equal(parseTraceparent(`00-${TRACE}-${PARENT}-03`)?.sampled, true);
    assert.equal(parseTraceparent(`00-${TRACE}-${PARENT}-fe`)?.sampled, false);
  });

  it('refuses what §3.2 calls invalid', () => {
    const invalid = [
      undefined,
      '',
      ['a', 'b'] as unknown as string,
      `00-${TRACE.toUpperCase()}-${PARENT}-01`, // uppercase hex
      `00-${'0'.repeat(32)}-${PARENT}-01`, // all-zero trace id
      `00-${TRACE}-${'0'.repeat(16)}-01`, // all-zero parent id
      `ff-${TRACE}-${PARENT}-01`, // version ff
      `00-${TRACE}-${PARENT}-01-extra`, // version 00 must be exactly 55 characters
      `00-${TRACE}-${PARENT}-0`,
      `00-${TRACE.slice(1)}x-${PARENT}-01`,
      `00_${TRACE}-${PARENT}-01`,
      `0g-${TRACE}-${PARENT}-01`,
      `00-${TRACE}-${PARENT}-01, 00-${TRACE}-${PARENT}-01`, // two headers, joined by node
      ` 00-${TRACE}-${PARENT}-01`,
    ];
    for (const value of invalid) assert.equal(parseTraceparent(value), undefined, String(value));
  });

  it('reads a later version by the version 00 rules when a dash follows (§3.2.4)', () => {
    assert.deepEqual(parseTraceparent(`01-${TRACE}-${PARENT}-01-future`), { traceId: TRACE, parentId: PARENT, sampled: true });
    assert.deepEqual(parseTraceparent(`cc-${TRACE}-${PARENT}-00`), { traceId: TRACE, parentId: PARENT, sampled: false });
    assert.equal(parseTraceparent(`01-${TRACE}-${PARENT}-01x`), undefined);
  });

  it('never throws, and whatever it accepts is well formed (fuzzed)', () => {
    const hexChar = fc.constantFrom(...'0123456789abcdefABCDEF-x0 '.split(''));
    const nearMiss = fc.array(hexChar, { minLength: 50, maxLength: 60 }).map((chars) => chars.join(''));
    const mutated = fc.tuple(fc.nat(54), fc.string({ minLength: 1, maxLength: 1 })).map(([at, c]) => {
      const base = `00-${TRACE}-${PARENT}-01`;
      return base.slice(0, at) + c + base.slice(at + 1);
    });
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), nearMiss, mutated), (value) => {
        const parsed = parseTraceparent(value);
        if (parsed === undefined) return;
        assert.match(parsed.traceId, /^[0-9a-f]{32}$/);
        assert.match(parsed.parentId, /^[0-9a-f]{16}$/);
        assert.notEqual(parsed.traceId, '0'.repeat(32));
        assert.notEqual(parsed.parentId, '0'.repeat(16));
      }),
      { numRuns: Number(process.env['FUZZ_RUNS'] ?? 2000) },
    );
  });
});

describe('boundTraceState', () => {
  it('passes valid members on in order, dropping invalid and duplicate keys', () => {
    assert.equal(boundTraceState('congo=t61rcWkgMzE, rojo=00f067aa0ba902b7'), 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
    assert.equal(boundTraceState('tenant@vendor=v1,,  ,BAD=x,ok=,a=b,a=c,=novalue,noequals'), 'tenant@vendor=v1,a=b');
    assert.equal(boundTraceState(undefined), '');
    assert.equal(boundTraceState(''), '');
    assert.equal(boundTraceState('k=has,comma'), 'k=has');
  });

  it('keeps at most 32 members and 512 characters, removing long members first, then from the end', () => {
    const many = Array.from({ length: 40 }, (_, i) => `k${i}=v`).join(',');
    const kept = boundTraceState(many).split(',');
    assert.equal(kept.length, TRACESTATE_MAX_MEMBERS);
    assert.equal(kept[31], 'k31=v');

    const long = `big=${'x'.repeat(200)}`;
    const mediums = Array.from({ length: 5 }, (_, i) => `m${i}=${'y'.repeat(100)}`);
    const bounded = boundTraceState([mediums[0], long, ...mediums.slice(1)].join(','));
    assert.ok(bounded.length <= TRACESTATE_MAX_LENGTH);
    assert.ok(!bounded.includes('big='), 'the member over 128 characters goes first');
    assert.deepEqual(bounded.split(',').map((m) => m.split('=')[0]), ['m0', 'm1', 'm2', 'm3']);
  });

  it('never throws and never exceeds its bounds (fuzzed)', () => {
    const member = fc.tuple(fc.stringMatching(/^[a-z0-9@_*/-]{0,12}$/), fc.string({ maxLength: 300 })).map(([k, v]) => `${k}=${v}`);
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 4000 }), fc.tuple(fc.array(member, { maxLength: 60 }), fc.constantFrom(',', ', ', ' , ')).map(([members, separator]) => members.join(separator))), (value) => {
        const out = boundTraceState(value);
        assert.ok(out.length <= TRACESTATE_MAX_LENGTH);
        assert.ok(out === '' || out.split(',').length <= TRACESTATE_MAX_MEMBERS);
        assert.ok(!/[\r\n]/.test(out), 'nothing that could split a header');
      }),
      { numRuns: Number(process.env['FUZZ_RUNS'] ?? 1000) },
    );
  });
});

describe('gatewayHop', () => {
  it('continues a valid parent with a new span id, honouring its sampled flag and tracestate', () => {
    const hop = gatewayHop(`00-${TRACE}-${PARENT}-01`, 'rojo=1', never);
    assert.equal(hop.traceId, TRACE);
    assert.equal(hop.parentSpanId, PARENT);
    assert.match(hop.spanId, /^[0-9a-f]{16}$/);
    assert.notEqual(hop.spanId, PARENT);
    assert.equal(hop.sampled, true, 'a sampled parent is sampled whatever the root ratio');
    assert.equal(hop.traceState, 'rojo=1');
    assert.equal(formatTraceparent(hop), `00-${TRACE}-${hop.spanId}-01`);
    assert.equal(gatewayHop(`00-${TRACE}-${PARENT}-00`, undefined, always).sampled, false, 'an unsampled parent stays unsampled');
  });

  it('starts a new trace when the parent is absent or invalid, dropping its tracestate', () => {
    for (const header of [undefined, 'garbage', `00-${'0'.repeat(32)}-${PARENT}-01`]) {
      const hop = gatewayHop(header, 'rojo=1', always);
      assert.match(hop.traceId, /^[0-9a-f]{32}$/);
      assert.notEqual(hop.traceId, TRACE);
      assert.equal(hop.parentSpanId, '');
      assert.equal(hop.traceState, '');
      assert.equal(hop.sampled, true);
      assert.match(formatTraceparent(hop), /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    }
    assert.equal(gatewayHop(undefined, undefined, never).sampled, false);
    const ids = new Set(Array.from({ length: 1000 }, () => gatewayHop(undefined, undefined, never).traceId));
    assert.equal(ids.size, 1000);
  });
});

describe('rootSampler', () => {
  it('samples by trace id: none at 0, all at 1, about the ratio in between, the same answer for the same id', () => {
    const ids = Array.from({ length: 20_000 }, () => gatewayHop(undefined, undefined, never).traceId);
    assert.equal(ids.filter(rootSampler(0)).length, 0);
    assert.equal(ids.filter(rootSampler(1)).length, ids.length);
    const tenth = ids.filter(rootSampler(0.1)).length / ids.length;
    // 20,000 draws: the standard deviation of the share is 0.002; 0.02 is ten of them.
    assert.ok(Math.abs(tenth - 0.1) < 0.02, String(tenth));
    const sampler = rootSampler(0.5);
    for (const id of ids.slice(0, 100)) assert.equal(sampler(id), sampler(id));
    assert.equal(rootSampler(0.5)('0'.repeat(24) + '7fffffff'), true);
    assert.equal(rootSampler(0.5)('0'.repeat(24) + '80000000'), false);
  });
});

describe('RootTraceparents', () => {
  it('formats valid, distinct root traceparents whose sampled flag is rootSampler\'s answer for their trace id', () => {
    for (const ratio of [0, 0.1, 0.5, 1]) {
      const pool = new RootTraceparents(samplingThreshold(ratio));
      const sampler = rootSampler(ratio);
      const seen = new Set<string>();
      let sampled = 0;
      // 1,000 draws: several refills of the pool.
      for (let i = 0; i < 1000; i += 1) {
        const value = pool.take();
        const parsed = parseTraceparent(value);
        assert.ok(parsed !== undefined, value);
        assert.match(value, /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
        assert.equal(parsed.sampled, sampler(parsed.traceId), value);
        if (parsed.sampled) sampled += 1;
        seen.add(parsed.traceId);
        seen.add(parsed.parentId);
      }
      assert.equal(seen.size, 2000, 'no id drawn twice');
      if (ratio === 0) assert.equal(sampled, 0);
      if (ratio === 1) assert.equal(sampled, 1000);
    }
  });

  it('writes the drawn bytes as the ids\' hex, draws a record again only when an id is all zeros, and flags by the trace id\'s last 32 bits', () => {
    // Known bytes instead of the CSPRNG: byte i of a draw is i & 255, except that the pool's first draw
    // zeroes record 0 (both ids), record 1's span id (bytes 18-25) and record 2's bytes 4-15 (inside
    // its trace id, which bytes 2-3 keep non-zero: no new draw).
    const draws: [number, number][] = [];
    const fill = (bytes: Buffer, offset = 0, size = bytes.length - offset): void => {
      draws.push([offset, size]);
      for (let i = offset; i < offset + size; i += 1) bytes[i] = i & 255;
      if (draws.length === 1) {
        bytes.fill(0, 0, 28);
        bytes.fill(0, 28 + 18, 28 + 26);
        bytes.fill(0, 56 + 4, 56 + 16);
      }
    };
    const pool = new RootTraceparents(samplingThreshold(0.5), fill);
    const values = Array.from({ length: 129 }, () => pool.take());
    assert.deepEqual(draws.slice(0, 3), [[0, 128 * 28], [0, 28], [28, 28]]);
    // The draw as the pool holds it after the new draws: record 2 keeps its zeros.
    const bytes = Buffer.from(Array.from({ length: 128 * 28 }, (_, i) => (i >= 56 + 4 && i < 56 + 16 ? 0 : i & 255)));
    const expected = (r: number): string => {
      const hex = bytes.subarray(r * 28, r * 28 + 28).toString('hex');
      return `00-${hex.slice(3, 35)}-${hex.slice(36, 52)}-0${rootSampler(0.5)(hex.slice(3, 35)) ? 1 : 0}`;
    };
    for (let r = 0; r < 128; r += 1) assert.equal(values[r], expected(r), `record ${r}`);
    assert.match(values[2] as string, /^00-[0-9a-f]{5}0{24}[0-9a-f]{3}-/);
    assert.ok(values.some((v) => v.endsWith('-01')) && values.some((v) => v.endsWith('-00')), 'both flags occur');
    assert.equal(values[128], expected(0), 'a refill draws again');
  });

  it('hands out the same values through the hop: ids read back from the traceparent', () => {
    const hop = gatewayHop(undefined, undefined, rootTraceparentsFor(0.5));
    assert.equal(hop.traceparent, formatTraceparent(hop));
    assert.equal(hop.traceparent, `00-${hop.traceId}-${hop.spanId}-0${hop.sampled ? 1 : 0}`);
    assert.equal(rootTraceparentsFor(0.5), rootTraceparentsFor(0.5), 'one pool per ratio');
  });
});
