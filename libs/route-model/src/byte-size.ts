// Binary multiples, as body-parser's `bytes` and nginx's client_max_body_size read them.
const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 };
const BYTE_SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb)?$/i;

/**
 * A byte count from a number (non-negative integer) or a string with an optional unit:
 * `1024`, `'100b'`, `'512kb'`, `'10mb'`, `'1.5GB'` (units are 1024-based, fractions are floored).
 * Undefined when the value is not a size.
 */
export function parseByteSize(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = BYTE_SIZE.exec(value.trim());
  if (match === null) return undefined;
  const unit = UNITS[(match[2] ?? 'b').toLowerCase()] ?? 1;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}
