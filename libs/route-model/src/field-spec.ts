/**
 * The vocabulary of the schema tables (Kong's `schema.lua` as TypeScript data): each field states
 * its type, default, bounds, message and a one-line description in one place. `schema-walker.ts`
 * is the one interpreter; `route.schema.ts` and `proxy-config.schema.ts` are the tables.
 */

/** What a custom check returns: the full message and, when it is not VALIDATION_ERROR, its code. */
export interface Issue {
  message: string;
  code?: string;
}

interface SpecBase {
  /** One line for the README field table. */
  readonly doc: string;
  /** Missing (or null) is an error. */
  readonly required?: boolean;
  /** Set by the server; a client may send it back but it is ignored (JSON Schema readOnly). */
  readonly readOnly?: boolean;
}

export interface StringSpec extends SpecBase {
  readonly kind: 'string';
  readonly default?: string;
  readonly oneOf?: readonly string[];
  readonly minLength?: number;
  readonly maxLength?: number;
  /** Applied before the other checks when normalizing (never when validating a canonical value). */
  readonly normalize?: (value: string) => string;
  /** `label` is the field as the user wrote it (`timeout.request`). */
  readonly check?: (value: string, label: string) => Issue | undefined;
}

export interface NumberSpec extends SpecBase {
  readonly kind: 'integer' | 'number';
  readonly default?: number;
  readonly min?: number;
  /** `min` itself is out of range ("must be greater than min"). */
  readonly exclusiveMin?: boolean;
  readonly max?: number;
  /** Replaces the generated range message. */
  readonly rangeMessage?: (label: string) => string;
  readonly normalize?: (value: number) => number;
}

export interface BooleanSpec extends SpecBase {
  readonly kind: 'boolean';
  readonly default?: boolean;
}

/** A number of bytes or a string with a unit (`10mb`); see parseByteSize. */
export interface ByteSizeSpec extends SpecBase {
  readonly kind: 'byteSize';
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
}

export interface ArraySpec extends SpecBase {
  readonly kind: 'array';
  readonly items: FieldSpec;
  readonly default?: ReadonlyArray<string | number>;
  readonly minItems?: number;
  /** Duplicates are dropped when normalizing (first one kept). */
  readonly unique?: boolean;
}

/** A free-keyed object: header name -> value, user -> password hash, ... */
export interface MapSpec extends SpecBase {
  readonly kind: 'map';
  readonly keyPattern: RegExp;
  /** `label` is the map entry's field (`headers.request.set["bad key"]`). */
  readonly keyMessage: (label: string) => string;
  readonly values: FieldSpec;
}

export interface ObjectSpec extends SpecBase {
  readonly kind: 'object';
  readonly fields: Readonly<Record<string, FieldSpec>>;
  /** When absent, normalizing creates it from its fields' defaults (`timeout` -> `{ request: 5000 }`). */
  readonly fill?: boolean;
  /**
   * A short form accepted when normalizing: a value for which `applies` is true stands for the
   * field `into` (`timeout: 3000` means `timeout.request: 3000`), is checked with that field's
   * spec and reported under the parent's name.
   */
  readonly shorthand?: { readonly into: string; readonly applies: (raw: unknown) => boolean };
}

/** A key that must never be given; `message` says what to do instead. */
export interface ForbiddenSpec extends SpecBase {
  readonly kind: 'forbidden';
  readonly message: (label: string) => string;
}

export type FieldSpec = StringSpec | NumberSpec | BooleanSpec | ByteSizeSpec | ArraySpec | MapSpec | ObjectSpec | ForbiddenSpec;

/**
 * The fields of an object spec for type T: every key of T must appear (so the table cannot drift
 * from the types in route.types.ts); extra keys are allowed only for forbidden fields.
 */
export type FieldsOf<T> = { readonly [K in keyof Required<T>]: FieldSpec } & Readonly<Record<string, FieldSpec>>;

type Options<S> = Omit<S, 'kind'>;

export const str = (o: Options<StringSpec>): StringSpec => ({ kind: 'string', ...o });
export const int = (o: Options<NumberSpec>): NumberSpec => ({ kind: 'integer', ...o });
export const num = (o: Options<NumberSpec>): NumberSpec => ({ kind: 'number', ...o });
export const bool = (o: Options<BooleanSpec>): BooleanSpec => ({ kind: 'boolean', ...o });
export const byteSize = (o: Options<ByteSizeSpec>): ByteSizeSpec => ({ kind: 'byteSize', ...o });
export const arr = (o: Options<ArraySpec>): ArraySpec => ({ kind: 'array', ...o });
export const map = (o: Options<MapSpec>): MapSpec => ({ kind: 'map', ...o });
export const forbidden = (o: Options<ForbiddenSpec>): ForbiddenSpec => ({ kind: 'forbidden', ...o });

export function obj<T>(fields: FieldsOf<T>, o: Omit<ObjectSpec, 'kind' | 'fields'>): ObjectSpec {
  return { kind: 'object', fields, ...o };
}
