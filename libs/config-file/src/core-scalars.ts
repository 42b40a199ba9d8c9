/**
 * The YAML 1.2 core schema's plain scalars as the `yaml` package reads them (it gives errors their
 * lines, so its values are the reference): js-yaml's own core schema also reads `0b101`, `+0x1F`
 * and `1_000.5` as numbers, which `yaml` keeps as strings. Shared by the js-yaml schema
 * (fast-yaml.ts) and the plain reader (plain-yaml.ts), so both give the same values.
 */

export function isCoreNull(data: string): boolean {
  return data === '' || data === '~' || data === 'null' || data === 'Null' || data === 'NULL';
}

const BOOL = /^(?:true|True|TRUE|false|False|FALSE)$/;

export function isCoreBool(data: string): boolean {
  return BOOL.test(data);
}

export function coreBool(data: string): boolean {
  return data === 'true' || data === 'True' || data === 'TRUE';
}

const DECIMAL = /^[-+]?[0-9]+$/;
const OCTAL = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;

export function isCoreInt(data: string): boolean {
  return DECIMAL.test(data) || OCTAL.test(data) || HEX.test(data);
}

export function coreInt(data: string): number {
  return OCTAL.test(data) ? parseInt(data.slice(2), 8) : HEX.test(data) ? parseInt(data.slice(2), 16) : Number(data);
}

const FLOAT_NUMBER = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INFINITY = /^[-+]?\.(?:inf|Inf|INF)$/;
const NOT_A_NUMBER = /^\.(?:nan|NaN|NAN)$/;

export function isCoreFloat(data: string): boolean {
  return FLOAT_NUMBER.test(data) || INFINITY.test(data) || NOT_A_NUMBER.test(data);
}

export function coreFloat(data: string): number {
  return INFINITY.test(data) ? (data.startsWith('-') ? -Infinity : Infinity) : NOT_A_NUMBER.test(data) ? NaN : parseFloat(data);
}

/**
 * A plain scalar's value: null, a boolean, a number or the text itself, in the order js-yaml tries
 * the schema's types. Most of a config's scalars are names, paths and URLs: a first character
 * that no typed scalar starts with skips the patterns.
 */
export function corePlainScalar(data: string): unknown {
  const first = data.charCodeAt(0);
  // Letters other than n/N, t/T, f/F and characters such as '/' or '$' start only strings.
  const typed = data === '' || first === 126 /* ~ */ || first === 46 /* . */ || first === 43 /* + */ || first === 45 /* - */ || (first >= 48 && first <= 57) || 'nNtTfF'.includes(data[0] as string);
  if (!typed) return data;
  if (isCoreNull(data)) return null;
  if (isCoreBool(data)) return coreBool(data);
  if (isCoreInt(data)) return coreInt(data);
  if (isCoreFloat(data)) return coreFloat(data);
  return data;
}
