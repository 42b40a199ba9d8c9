import type { FieldError, JsonSchema } from '@gateway/route-model';

/** The editor's value: the route as the API will receive it, changed only where the admin edits. */
export type Draft = Record<string, unknown>;

/** A field's place in the draft, as the API names it in `details.fields` (`timeout.request`). */
export type FieldPath = readonly string[];

export const fieldName = (path: FieldPath): string => path.join('.');

export function valueAt(draft: Draft, path: FieldPath): unknown {
  let at: unknown = draft;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/**
 * A copy of the draft with one value replaced; `undefined` removes the key, so a cleared optional
 * field is not sent (the server fills its default) and untouched fields stay exactly as loaded.
 */
export function withValue(draft: Draft, path: FieldPath, value: unknown): Draft {
  const [key, ...rest] = path;
  if (key === undefined) return draft;
  const next: Draft = { ...draft };
  if (rest.length === 0) {
    if (value === undefined) delete next[key];
    else next[key] = value;
    return next;
  }
  const child = next[key];
  next[key] = withValue(typeof child === 'object' && child !== null && !Array.isArray(child) ? (child as Draft) : {}, rest, value);
  return next;
}

/** The values a new block starts with: each field's default from the schema. */
export function defaultsOf(schema: JsonSchema): Draft {
  const out: Draft = {};
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    if (field.readOnly === true) continue;
    if (field.default !== undefined) out[key] = structuredClone(field.default);
    else if (field.type === 'object' && field.properties !== undefined && (schema.required ?? []).includes(key)) out[key] = defaultsOf(field);
  }
  return out;
}

/**
 * The errors a field shows: those naming it or something inside it (`methods[2]`,
 * `headers.request.set["x y"]`). Errors no field claims appear in the summary only.
 */
export function errorsFor(errors: readonly FieldError[], path: FieldPath): FieldError[] {
  const name = fieldName(path);
  return errors.filter((error) => error.field === name || error.field.startsWith(`${name}[`) || error.field.startsWith(`${name}.`));
}

/** The DOM id of a field's control, so the error summary can link to it. */
export const controlId = (path: FieldPath): string => `field-${path.join('-')}`;
