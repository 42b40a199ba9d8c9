import { bool, int, num, obj } from './field-spec';
import { FAILED, isPlainObject, report, walkField, type WalkContext } from './schema-walker';

/** Spec 2.2's `rateLimiting` block; only read, then rewritten as `rateLimit`. */
interface RateLimiting {
  enabled: boolean;
  requests: number;
  window: number;
}

const RATE_LIMITING_SCHEMA = obj<RateLimiting>(
  {
    enabled: bool({ doc: 'limit applied' }),
    requests: int({ doc: 'requests per window (rateLimit.max)', min: 0, exclusiveMin: true }),
    // Seconds; a thousandth is the smallest window that survives the conversion to whole ms.
    window: num({ doc: 'window in seconds (rateLimit.windowMs / 1000)', min: 0.001 }),
  },
  { doc: 'variant B rate limit' },
);

/**
 * Decision 6: rewrites variant B fields (spec 2.2) into their variant A places in `working`,
 * so the route table checks them; `rename` keeps errors on the name the client used.
 * `timeout` as a number and `circuitBreaker.threshold` as a fraction are short forms of the
 * table itself (route.schema.ts). When both spellings are given and differ, the variant B one
 * is reported and ignored.
 */
export function applyVariantB(working: Record<string, unknown>, ctx: WalkContext, rename: Map<string, string>): void {
  moveTarget(working, ctx, rename);
  moveRetryAttempts(working, ctx, rename);
  moveRateLimiting(working, ctx);
}

function given(value: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(value, key) && value[key] !== undefined && value[key] !== null;
}

/** Removes a variant B key (so the table does not call it unknown) and returns its value if given. */
function take(working: Record<string, unknown>, key: string): unknown {
  const value = given(working, key) ? working[key] : undefined;
  delete working[key];
  return value;
}

function moveTarget(working: Record<string, unknown>, ctx: WalkContext, rename: Map<string, string>): void {
  const target = take(working, 'target');
  if (target === undefined) return;
  if (!given(working, 'upstream')) {
    working.upstream = target;
    rename.set('upstream', 'target');
  } else if (working.upstream !== target) {
    report(ctx, 'target', 'target conflicts with upstream; give one of them');
  }
}

function moveRetryAttempts(working: Record<string, unknown>, ctx: WalkContext, rename: Map<string, string>): void {
  const attempts = take(working, 'retryAttempts');
  if (attempts === undefined) return;
  const retry = given(working, 'retry') ? working.retry : {};
  // A `retry` that is not an object is reported by the table; there is nothing to merge into.
  if (!isPlainObject(retry)) return;
  if (given(retry, 'attempts')) {
    if (retry.attempts !== attempts) report(ctx, 'retryAttempts', 'retryAttempts conflicts with retry.attempts; give one of them');
    return;
  }
  // Variant B has no on/off switch: zero attempts means retries are off.
  const enabled = given(retry, 'enabled') || typeof attempts !== 'number' ? {} : { enabled: attempts > 0 };
  working.retry = { ...retry, ...enabled, attempts };
  rename.set('retry.attempts', 'retryAttempts');
}

function moveRateLimiting(working: Record<string, unknown>, ctx: WalkContext): void {
  const raw = take(working, 'rateLimiting');
  if (raw === undefined) return;
  if (given(working, 'rateLimit')) {
    report(ctx, 'rateLimiting', 'rateLimiting conflicts with rateLimit; give one of them');
    return;
  }
  const parsed = walkField(RATE_LIMITING_SCHEMA, raw, 'rateLimiting', 'rateLimiting', ctx);
  if (parsed === FAILED || !isPlainObject(parsed)) return;
  const rateLimit: Record<string, unknown> = {};
  if (parsed.enabled !== undefined) rateLimit.enabled = parsed.enabled;
  if (typeof parsed.requests === 'number') rateLimit.max = parsed.requests;
  if (typeof parsed.window === 'number') rateLimit.windowMs = Math.round(parsed.window * 1000);
  working.rateLimit = rateLimit;
}
