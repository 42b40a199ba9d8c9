import { normalizeUpstream, type UpstreamDefinition } from '@gateway/route-model';
import { DomainError } from '../common/domain-error';
import { isJsonObject as isObject, mergePatch } from '../common/merge-patch';

/**
 * Fields the server sets. A client may send them back (a GET answer used as a PUT body); they are
 * dropped, never trusted: `source` is always `api` here.
 */
const SERVER_SET_FIELDS = ['source', 'createdAt', 'updatedAt'] as const;

function bodyError(): DomainError {
  return DomainError.fromFieldErrors([{ field: '(body)', message: 'body must be a JSON object', code: 'VALIDATION_ERROR' }]);
}

/**
 * A create or replace body -> the canonical upstream, through libs/route-model `normalizeUpstream`
 * only (the validator proxy.yml and config:validate use). `name` is the upstream being written
 * (PUT/PATCH): the body may repeat it, not change it (routes name upstreams by it).
 */
export function parseUpstreamBody(body: unknown, name?: string): UpstreamDefinition {
  if (!isObject(body)) throw bodyError();
  const input: Record<string, unknown> = { ...body };
  for (const field of SERVER_SET_FIELDS) delete input[field];
  if (name !== undefined) {
    if (input['name'] !== undefined && input['name'] !== null && input['name'] !== name) {
      throw DomainError.fromFieldErrors([{ field: 'name', message: 'name cannot be changed (routes name the upstream by it); create a new upstream instead', code: 'VALIDATION_ERROR' }]);
    }
    input['name'] = name;
  }
  const result = normalizeUpstream(input);
  if (!result.ok) throw DomainError.fromFieldErrors(result.errors);
  return result.value;
}

/**
 * PATCH: a JSON merge patch (RFC 7396) over the stored upstream; objects merge, arrays (targets)
 * and scalars replace, `null` removes a field. `url` in the patch replaces the stored targets
 * (it is their shorthand). The result is validated like a PUT body.
 */
export function mergeUpstreamPatch(stored: UpstreamDefinition, patch: unknown): UpstreamDefinition {
  if (!isObject(patch)) throw bodyError();
  const base: Record<string, unknown> = { ...stored };
  for (const field of SERVER_SET_FIELDS) delete base[field];
  if (patch['url'] !== undefined && patch['url'] !== null) delete base['targets'];
  return parseUpstreamBody(mergePatch(base, patch), stored.name);
}
