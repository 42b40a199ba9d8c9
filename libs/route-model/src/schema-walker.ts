import type { FieldError } from './route.types';
import type { ArraySpec, ByteSizeSpec, FieldSpec, MapSpec, NumberSpec, ObjectSpec, StringSpec } from './field-spec';
import { parseByteSize } from './byte-size';
import { ROUTE_MODEL_ERROR_CODES } from './error-codes';
import { appendIndex, appendKey, joinFieldPath } from './field-path';

/**
 * `normalize`: input from a client or a file; short forms and defaults are applied.
 * `validate`: an already canonical value; nothing is changed, only checked.
 */
export type WalkMode = 'normalize' | 'validate';

export interface WalkContext {
  readonly mode: WalkMode;
  /** Prepended to every reported field (`routes[3]`); messages name the field without it. */
  readonly prefix: string;
  /** How the whole value is named in a message about it ("route must be an object"). */
  readonly rootLabel: string;
  readonly errors: FieldError[];
  /**
   * Canonical path -> the path the user actually wrote, for values moved there by a short form
   * (`upstream` <- `target`, `authentication.apiUrl` <- `authentication.acme.apiUrl`).
   */
  readonly rename?: ReadonlyMap<string, string>;
  /** Canonical paths already reported or set by the caller: neither checked nor filled. */
  readonly skip?: ReadonlySet<string>;
}

export function report(ctx: WalkContext, shown: string, message: string, code: string = ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR): void {
  ctx.errors.push({ field: joinFieldPath(ctx.prefix, shown), message, code });
}

export function labelOf(ctx: WalkContext, shown: string): string {
  return shown === '' ? ctx.rootLabel : shown;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Marks a value that failed; the parent leaves the key out (its error is already reported). */
export const FAILED: unique symbol = Symbol('failed');

/**
 * Checks (and when normalizing, completes) one value against its spec, reporting every problem
 * into ctx.errors. Returns the resulting value, undefined when absent without a default, or FAILED.
 * `canon` is the field's canonical path (for rename/skip), `shown` the one used in messages.
 * null counts as absent: YAML writes an empty key as null, and a JSON client sends null to mean "unset".
 */
export function walkField(spec: FieldSpec, raw: unknown, canon: string, shown: string, ctx: WalkContext): unknown {
  if (raw === undefined || raw === null) return walkAbsent(spec, canon, shown, ctx);
  return walkPresent(spec, raw, canon, shown, ctx);
}

function walkAbsent(spec: FieldSpec, canon: string, shown: string, ctx: WalkContext): unknown {
  if (spec.kind === 'forbidden') return undefined;
  if (spec.required) {
    report(ctx, shown, `${labelOf(ctx, shown)} is required`);
    return FAILED;
  }
  if (ctx.mode === 'validate') return undefined;
  if (spec.kind === 'object') return spec.fill ? walkObjectFields(spec, {}, canon, shown, ctx) : undefined;
  if (spec.kind === 'map') return undefined;
  // Arrays are copied so routes never share (and never mutate) the frozen defaults.
  if (spec.kind === 'array') return spec.default === undefined ? undefined : [...spec.default];
  return spec.default;
}

function walkPresent(spec: FieldSpec, value: unknown, canon: string, shown: string, ctx: WalkContext): unknown {
  switch (spec.kind) {
    case 'string':
      return walkString(spec, value, shown, ctx);
    case 'integer':
    case 'number':
      return walkNumber(spec, value, shown, ctx);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      report(ctx, shown, `${labelOf(ctx, shown)} must be a boolean`);
      return FAILED;
    case 'byteSize':
      return walkByteSize(spec, value, shown, ctx);
    case 'array':
      return walkArray(spec, value, canon, shown, ctx);
    case 'map':
      return walkMap(spec, value, canon, shown, ctx);
    case 'object':
      return walkObject(spec, value, canon, shown, ctx);
    case 'forbidden':
      report(ctx, shown, spec.message(labelOf(ctx, shown)));
      return FAILED;
  }
}

function walkString(spec: StringSpec, value: unknown, shown: string, ctx: WalkContext): unknown {
  const label = labelOf(ctx, shown);
  if (typeof value !== 'string') {
    report(ctx, shown, `${label} must be a string`);
    return FAILED;
  }
  const text = ctx.mode === 'normalize' && spec.normalize ? spec.normalize(value) : value;
  let problem: string | undefined;
  let code: string | undefined;
  if (spec.oneOf !== undefined && !spec.oneOf.includes(text)) problem = `${label} must be one of: ${spec.oneOf.join(', ')}`;
  else if (spec.minLength !== undefined && text.length < spec.minLength)
    problem = spec.minLength === 1 ? `${label} must not be empty` : `${label} must be at least ${spec.minLength} characters`;
  else if (spec.maxLength !== undefined && text.length > spec.maxLength) problem = `${label} must be at most ${spec.maxLength} characters`;
  else if (spec.check !== undefined) {
    const issue = spec.check(text, label);
    problem = issue?.message;
    code = issue?.code;
  }
  if (problem === undefined) return text;
  report(ctx, shown, problem, code);
  return FAILED;
}

function walkNumber(spec: NumberSpec, value: unknown, shown: string, ctx: WalkContext): unknown {
  const label = labelOf(ctx, shown);
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    report(ctx, shown, `${label} must be ${spec.kind === 'integer' ? 'an integer' : 'a number'}`);
    return FAILED;
  }
  if (spec.kind === 'integer' && !Number.isInteger(value)) {
    report(ctx, shown, `${label} must be an integer`);
    return FAILED;
  }
  const n = ctx.mode === 'normalize' && spec.normalize ? spec.normalize(value) : value;
  const problem = rangeProblem(spec, n, label);
  if (problem === undefined) return n;
  report(ctx, shown, problem);
  return FAILED;
}

function rangeProblem(spec: NumberSpec | ByteSizeSpec, n: number, label: string): string | undefined {
  const { min, max } = spec;
  const exclusiveMin = spec.kind !== 'byteSize' && spec.exclusiveMin === true;
  const below = min !== undefined && (exclusiveMin ? n <= min : n < min);
  const above = max !== undefined && n > max;
  if (!below && !above) return undefined;
  if (spec.kind !== 'byteSize' && spec.rangeMessage) return spec.rangeMessage(label);
  if (min !== undefined && max !== undefined) {
    return exclusiveMin ? `${label} must be greater than ${min} and at most ${max}` : `${label} must be between ${min} and ${max}`;
  }
  if (min !== undefined) return exclusiveMin ? `${label} must be greater than ${min}` : `${label} must be at least ${min}`;
  return `${label} must be at most ${max}`;
}

function walkByteSize(spec: ByteSizeSpec, value: unknown, shown: string, ctx: WalkContext): unknown {
  const label = labelOf(ctx, shown);
  const bytes = parseByteSize(value);
  if (bytes === undefined) {
    report(ctx, shown, `${label} must be a byte size such as 1048576, '512kb' or '10mb'`);
    return FAILED;
  }
  const problem = rangeProblem(spec, bytes, label);
  if (problem === undefined) return bytes;
  report(ctx, shown, problem);
  return FAILED;
}

function walkArray(spec: ArraySpec, value: unknown, canon: string, shown: string, ctx: WalkContext): unknown {
  const label = labelOf(ctx, shown);
  if (!Array.isArray(value)) {
    report(ctx, shown, `${label} must be an array`);
    return FAILED;
  }
  if (spec.minItems !== undefined && value.length < spec.minItems) {
    report(ctx, shown, spec.minItems === 1 ? `${label} must not be empty` : `${label} must have at least ${spec.minItems} items`);
    return FAILED;
  }
  const out: unknown[] = [];
  let failed = false;
  // Indexed loops here and below: start-up walks 10,000 routes mostly before V8 optimizes the
  // walker, and in its interpreter a callback or an iterator per element costs a call each.
  for (let i = 0; i < value.length; i += 1) {
    const item: unknown = value[i];
    const itemShown = appendIndex(shown, i);
    const result =
      item === undefined || item === null
        ? reportMissingItem(spec.items, itemShown, ctx)
        : walkPresent(spec.items, item, appendIndex(canon, i), itemShown, ctx);
    if (result === FAILED) failed = true;
    else if (!(ctx.mode === 'normalize' && spec.unique && out.includes(result))) out.push(result);
  }
  return failed ? FAILED : out;
}

function reportMissingItem(spec: FieldSpec, shown: string, ctx: WalkContext): typeof FAILED {
  report(ctx, shown, `${labelOf(ctx, shown)} must be ${TYPE_NAMES[spec.kind]}`);
  return FAILED;
}

const TYPE_NAMES: Readonly<Record<FieldSpec['kind'], string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  byteSize: 'a byte size',
  array: 'an array',
  map: 'an object',
  object: 'an object',
  forbidden: 'absent',
};

function walkMap(spec: MapSpec, value: unknown, canon: string, shown: string, ctx: WalkContext): unknown {
  if (!isPlainObject(value)) {
    report(ctx, shown, `${labelOf(ctx, shown)} must be an object`);
    return FAILED;
  }
  const out: Record<string, unknown> = {};
  let failed = false;
  for (const key of Object.keys(value)) {
    const keyShown = appendKey(shown, key);
    if (!spec.keyPattern.test(key)) {
      report(ctx, keyShown, spec.keyMessage(keyShown));
      failed = true;
      continue;
    }
    const entry = value[key];
    const result =
      entry === undefined || entry === null
        ? reportMissingItem(spec.values, keyShown, ctx)
        : walkPresent(spec.values, entry, appendKey(canon, key), keyShown, ctx);
    if (result === FAILED) failed = true;
    // defineProperty: a key such as `__proto__` is data here, never a prototype change.
    else Object.defineProperty(out, key, { value: result, enumerable: true, writable: true, configurable: true });
  }
  return failed ? FAILED : out;
}

function walkObject(spec: ObjectSpec, value: unknown, canon: string, shown: string, ctx: WalkContext): unknown {
  if (ctx.mode === 'normalize' && spec.shorthand !== undefined && spec.shorthand.applies(value)) {
    const { into } = spec.shorthand;
    const intoSpec = spec.fields[into];
    if (intoSpec === undefined) throw new Error(`schema: shorthand target ${into} is not a field`);
    const inner = walkPresent(intoSpec, value, appendKey(canon, into), shown, ctx);
    if (inner === FAILED) return FAILED;
    return walkObjectFields(spec, { [into]: inner }, canon, shown, ctx);
  }
  if (!isPlainObject(value)) {
    report(ctx, shown, `${labelOf(ctx, shown)} must be an object`);
    return FAILED;
  }
  return walkObjectFields(spec, value, canon, shown, ctx);
}

/**
 * Every field of the spec in table order, then one "Unknown field" per key the spec does not know.
 * A child that fails is left out, so cross-field checks see only values that passed.
 */
export function walkObjectFields(
  spec: ObjectSpec,
  value: Record<string, unknown>,
  canon: string,
  shown: string,
  ctx: WalkContext,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = childFields(spec, canon);
  // Most walks have nothing renamed or skipped: no lookup per field then.
  const skip = ctx.skip !== undefined && ctx.skip.size > 0 ? ctx.skip : undefined;
  const rename = ctx.rename !== undefined && ctx.rename.size > 0 ? ctx.rename : undefined;
  for (let i = 0; i < fields.length; i += 1) {
    const { key, spec: fieldSpec, path: childCanon } = fields[i] as ChildField;
    if (skip?.has(childCanon)) continue;
    const childShown = rename?.get(childCanon) ?? (shown === canon ? childCanon : appendKey(shown, key));
    const result = walkField(fieldSpec, Object.hasOwn(value, key) ? value[key] : undefined, childCanon, childShown, ctx);
    if (result !== undefined && result !== FAILED) out[key] = result;
  }
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i] as string;
    if (!Object.hasOwn(spec.fields, key)) report(ctx, rename?.get(appendKey(canon, key)) ?? appendKey(shown, key), 'Unknown field');
  }
  return out;
}

interface ChildField {
  readonly key: string;
  readonly spec: FieldSpec;
  /** The field's canonical path under its parent's (`timeout` -> `timeout.request`). */
  readonly path: string;
}

/**
 * An object spec's fields with their paths under `canon`, built once per (spec, canon): they are
 * the same for every route of a file, so 10,000 routes do not each rebuild and re-test every path
 * of the table (most of the validation's time at start-up, docs/data-plane.md). Paths under an
 * array index (`targets[7]`) vary without bound: at most CHILD_PATHS_PER_SPEC are kept per spec.
 */
const childFieldCache = new WeakMap<ObjectSpec, Map<string, readonly ChildField[]>>();
const CHILD_PATHS_PER_SPEC = 64;

function childFields(spec: ObjectSpec, canon: string): readonly ChildField[] {
  let byCanon = childFieldCache.get(spec);
  if (byCanon === undefined) {
    byCanon = new Map();
    childFieldCache.set(spec, byCanon);
  }
  const cached = byCanon.get(canon);
  if (cached !== undefined) return cached;
  const fields = Object.entries(spec.fields).map(([key, fieldSpec]) => ({ key, spec: fieldSpec, path: appendKey(canon, key) }));
  if (byCanon.size < CHILD_PATHS_PER_SPEC) byCanon.set(canon, fields);
  return fields;
}
