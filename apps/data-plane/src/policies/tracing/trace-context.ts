import { randomHex } from '@gateway/correlation-id';
import type { TraceContext } from '../../engine/exchange';
import { DASH, ONE, SAMPLED_DIGIT_AT, SPAN_ID_AT, TRACE_ID_AT, TRACEPARENT_LENGTH, ZERO, samplingThreshold, type RootTraceparents } from './root-traceparents';

/**
 * W3C Trace Context level 1 (https://www.w3.org/TR/trace-context/): reading a caller's
 * traceparent and tracestate, and the context of the gateway's own hop. Pure functions: no input
 * may throw (fuzzed in trace-context.spec.ts).
 */

/** The caller's position in a trace, from a valid traceparent. */
export interface TraceParent {
  readonly traceId: string;
  readonly parentId: string;
  readonly sampled: boolean;
}

const LOWER_F = 0x66;
const INVALID_SPAN_ID = '0'.repeat(16);

/** The value of each lowercase hex digit by its code unit, -1 for every other ASCII code (§3.2: lowercase only). */
const HEX_DIGIT = new Int8Array(128).fill(-1);
for (let c = 0; c < 16; c += 1) HEX_DIGIT['0123456789abcdef'.charCodeAt(c)] = c;

function hexDigitAt(value: string, index: number): number {
  const code = value.charCodeAt(index);
  return code < 128 ? (HEX_DIGIT[code] as number) : -1;
}

/**
 * The bitwise OR of the hex digits in value[from, to): -1 when one is not a lowercase hex digit,
 * 0 when all are zero (an invalid id). One pass, no regex and no substring.
 */
function hexDigitsOr(value: string, from: number, to: number): number {
  let or = 0;
  for (let i = from; i < to; i += 1) {
    const digit = hexDigitAt(value, i);
    if (digit < 0) return -1;
    or |= digit;
  }
  return or;
}

/**
 * The caller's trace, or undefined when the header is absent or invalid (the gateway then
 * restarts the trace, §3.2.2). Version 00 must be exactly 55 characters; a later version is read
 * by the version 00 rules when its 56th character is a dash (§3.2.4, forward compatibility); ff is
 * never valid; all-zero ids are invalid. Two traceparent headers arrive joined with ", " and fail
 * the length rule, as §3.2 requires. Read at fixed positions (every field has a fixed width): this
 * runs on every traced request.
 */
export function parseTraceparent(value: string | string[] | undefined): TraceParent | undefined {
  if (typeof value !== 'string' || value.length < TRACEPARENT_LENGTH) return undefined;
  const versionZero = value.charCodeAt(0) === ZERO && value.charCodeAt(1) === ZERO;
  if (value.length > TRACEPARENT_LENGTH && (versionZero || value.charCodeAt(TRACEPARENT_LENGTH) !== DASH)) return undefined;
  if (value.charCodeAt(2) !== DASH || value.charCodeAt(35) !== DASH || value.charCodeAt(52) !== DASH) return undefined;
  if (hexDigitsOr(value, 0, 2) < 0 || (value.charCodeAt(0) === LOWER_F && value.charCodeAt(1) === LOWER_F)) return undefined;
  // <= 0: not lowercase hex, or all zeros (§3.2.2.3, §3.2.2.4).
  if (hexDigitsOr(value, 3, 35) <= 0 || hexDigitsOr(value, 36, 52) <= 0) return undefined;
  const flags = hexDigitAt(value, 54);
  if (hexDigitAt(value, 53) < 0 || flags < 0) return undefined;
  // Only the sampled bit is defined in level 1; other bits are not passed on (§3.2.2.5).
  return { traceId: value.slice(3, 35), parentId: value.slice(36, 52), sampled: (flags & 1) === 1 };
}

export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}${context.sampled ? '-01' : '-00'}`;
}

/** §3.3.1: at most 32 list-members; §3.3.1.5: propagate at least 512 characters. */
export const TRACESTATE_MAX_MEMBERS = 32;
export const TRACESTATE_MAX_LENGTH = 512;
/** §3.3.1.5: when cutting, members longer than this go first. */
const TRACESTATE_LONG_MEMBER = 128;
/** §3.3.1.3 keys: simple, or tenant@system (as OpenTelemetry reads them). */
const TRACESTATE_KEY = /^(?:[a-z0-9][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})$/;
/** §3.3.1.3.2 values: printable ASCII without ',' and '=', not ending in a space. */
const TRACESTATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/**
 * The caller's tracestate as the gateway passes it on: invalid and duplicate members dropped, at
 * most 32 members and 512 characters (long members removed first, then from the end, §3.3.1.5);
 * '' when nothing is left. Two tracestate headers arrive joined with ", ", which is how §3.3.1.1
 * says to combine them.
 */
export function boundTraceState(value: string | string[] | undefined): string {
  if (typeof value !== 'string' || value.length === 0) return '';
  const members: string[] = [];
  const keys = new Set<string>();
  for (const raw of value.split(',')) {
    const member = raw.trim();
    const equals = member.indexOf('=');
    if (equals <= 0) continue;
    const key = member.slice(0, equals);
    if (keys.has(key) || !TRACESTATE_KEY.test(key) || !TRACESTATE_VALUE.test(member.slice(equals + 1))) continue;
    keys.add(key);
    members.push(member);
    if (members.length === TRACESTATE_MAX_MEMBERS) break;
  }
  let kept = members;
  if (joinedLength(kept) > TRACESTATE_MAX_LENGTH) kept = kept.filter((m) => m.length <= TRACESTATE_LONG_MEMBER);
  while (joinedLength(kept) > TRACESTATE_MAX_LENGTH) kept = kept.slice(0, -1);
  return kept.join(',');
}

function joinedLength(members: readonly string[]): number {
  let length = members.length === 0 ? 0 : members.length - 1;
  for (const member of members) length += member.length;
  return length;
}

/** A non-zero id of `bytes` random bytes (an all-zero id is invalid, §3.2.2.3); the first digit settles 15 draws in 16. */
function newId(bytes: number, invalid: string): string {
  let id = randomHex(bytes);
  while (id.charCodeAt(0) === ZERO && id === invalid) id = randomHex(bytes);
  return id;
}

/**
 * Decides whether a trace the gateway starts is sampled, from its trace id (as OpenTelemetry's
 * TraceIdRatioBased does): the same trace id gets the same answer on every gateway replica.
 * `RootTraceparents` applies the same rule when it formats a root traceparent.
 */
export function rootSampler(ratio: number): (traceId: string) => boolean {
  const threshold = samplingThreshold(ratio);
  return (traceId) => lowest32Bits(traceId) < threshold;
}

/** The last 8 hex digits of a (valid, lowercase) trace id as an unsigned number, without a substring or parseInt. */
function lowest32Bits(traceId: string): number {
  let value = 0;
  for (let i = traceId.length - 8; i < traceId.length; i += 1) value = value * 16 + hexDigitAt(traceId, i);
  return value;
}

/**
 * The gateway hop's trace context, held as the traceparent sent upstream: the ids are read from
 * it only when something asks (a sampled span, the access log), so an unsampled request makes no
 * id strings of its own (issue 18).
 */
export class TraceHop implements TraceContext {
  readonly sampled: boolean;

  constructor(
    /** `00-<trace id>-<span id>-<flags>`, lowercase hex the gateway drew or validated. */
    readonly traceparent: string,
    readonly parentSpanId: string,
    readonly traceState: string,
  ) {
    this.sampled = traceparent.charCodeAt(SAMPLED_DIGIT_AT) === ONE;
  }

  get traceId(): string {
    return this.traceparent.slice(TRACE_ID_AT, TRACE_ID_AT + 32);
  }

  get spanId(): string {
    return this.traceparent.slice(SPAN_ID_AT, SPAN_ID_AT + 16);
  }
}

/**
 * The context of the gateway's hop: the caller's trace with a new span id, honouring the caller's
 * sampled flag (parent-based sampling), or a new trace from `roots` (sampled by its ratio).
 */
export function gatewayHop(traceparent: string | string[] | undefined, tracestate: string | string[] | undefined, roots: RootTraceparents): TraceHop {
  const parent = parseTraceparent(traceparent);
  // A new trace has no vendor state to carry: the old tracestate belonged to the invalid parent.
  if (parent === undefined) return new TraceHop(roots.take(), '', '');
  const spanId = newId(8, INVALID_SPAN_ID);
  return new TraceHop(`00-${parent.traceId}-${spanId}${parent.sampled ? '-01' : '-00'}`, parent.parentId, boundTraceState(tracestate));
}
