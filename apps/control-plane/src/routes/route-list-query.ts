import { DomainError } from '../common/domain-error';

/** Decision 5. */
export interface RouteListQuery {
  limit: number;
  offset: number;
  search?: string;
  enabled?: boolean;
  tag?: string;
  /** true: only soft-deleted routes; false (default): only live ones. */
  deleted: boolean;
}

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
const MAX_TEXT = 256;
const MAX_TAG = 64;

/**
 * Every parameter of the list, with its OpenAPI schema: the parser accepts exactly these names and
 * the document declares exactly these (route-openapi.ts).
 */
export const ROUTE_LIST_PARAMETERS: Record<keyof RouteListQuery, { schema: Record<string, unknown>; description: string }> = {
  limit: { schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }, description: 'Page size' },
  offset: { schema: { type: 'integer', minimum: 0, default: 0 }, description: 'Routes to skip (order: createdAt, then id)' },
  search: { schema: { type: 'string', maxLength: MAX_TEXT }, description: 'Case-insensitive substring of path or description (% and _ are literal); empty: no filter' },
  enabled: { schema: { type: 'boolean' }, description: 'Only enabled (true) or disabled (false) routes' },
  tag: { schema: { type: 'string', maxLength: MAX_TAG }, description: 'Only routes carrying exactly this tag' },
  deleted: { schema: { type: 'boolean', default: false }, description: 'true: only soft-deleted routes (with deletedAt); false: only live ones' },
};

type FieldProblem = { field: string; message: string; code: 'VALIDATION_ERROR' };

/**
 * The list's query string -> a typed query. Unknown parameters, repeated ones and bad values are
 * a 400 naming every failing parameter (decision 5: "unknown values give 400").
 */
export function parseRouteListQuery(raw: Record<string, unknown>): RouteListQuery {
  const problems: FieldProblem[] = [];
  const fail = (field: string, message: string): undefined => {
    problems.push({ field, message, code: 'VALIDATION_ERROR' });
    return undefined;
  };
  const text = (field: string): string | undefined => {
    const value = raw[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') return fail(field, `${field} must be given once, as a string`);
    return value;
  };
  const integer = (field: string, min: number, max: number): number | undefined => {
    const value = text(field);
    if (value === undefined) return undefined;
    if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) return fail(field, `${field} must be an integer between ${min} and ${max}`);
    return Number(value);
  };
  const flag = (field: string): boolean | undefined => {
    const value = text(field);
    if (value === undefined) return undefined;
    if (value !== 'true' && value !== 'false') return fail(field, `${field} must be true or false`);
    return value === 'true';
  };
  // An empty value is "no filter" (a search box left empty).
  const bounded = (field: string, max: number): string | undefined => {
    const value = text(field);
    if (value === undefined || value === '') return undefined;
    if (value.length > max) return fail(field, `${field} must be at most ${max} characters`);
    return value;
  };

  for (const key of Object.keys(raw)) {
    if (!Object.hasOwn(ROUTE_LIST_PARAMETERS, key)) fail(key, `Unknown query parameter: ${key}`);
  }
  const query: RouteListQuery = {
    limit: integer('limit', 1, MAX_LIMIT) ?? DEFAULT_LIMIT,
    offset: integer('offset', 0, 1_000_000_000) ?? 0,
    search: bounded('search', MAX_TEXT),
    enabled: flag('enabled'),
    tag: bounded('tag', MAX_TAG),
    deleted: flag('deleted') ?? false,
  };
  if (problems.length > 0) throw new DomainError('VALIDATION_ERROR', problems[0]?.message, { fields: problems });
  return query;
}
