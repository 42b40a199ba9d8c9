import type { ApiKeyDigest } from '@gateway/events';
import type { FieldError } from '@gateway/route-model';
import type { ApiKeySet } from '../engine/persisted-snapshot';

const DIGEST = /^[0-9a-f]{64}$/;
const FINGERPRINT = /^[0-9a-f]{16}$/;

/**
 * The API keys of a snapshot (from the control plane or the saved file), untrusted: each entry
 * that is not a well-formed digest is left out with a reason (the others still work). A snapshot
 * without `apiKeys` (a control plane that predates them) means no keys.
 */
export function readApiKeySet(rawKeys: unknown, rawFingerprint: unknown): { set: ApiKeySet; ignored: FieldError[] } {
  const ignored: FieldError[] = [];
  const keys: ApiKeyDigest[] = [];
  const fail = (field: string, message: string): void => void ignored.push({ field, code: 'VALIDATION_ERROR', message });
  if (rawKeys !== undefined && !Array.isArray(rawKeys)) fail('apiKeys', 'apiKeys must be an array');
  (Array.isArray(rawKeys) ? rawKeys : []).forEach((raw: unknown, index) => {
    const field = `apiKeys[${index}]`;
    if (typeof raw !== 'object' || raw === null) return fail(field, 'an API key must be an object');
    const entry = raw as Record<string, unknown>;
    const { keyId, digest, name, expiresAt } = entry;
    if (typeof keyId !== 'string' || keyId === '' || keyId.length > 128) return fail(`${field}.keyId`, 'keyId must be a string of 1 to 128 characters');
    if (typeof digest !== 'string' || !DIGEST.test(digest)) return fail(`${field}.digest`, `api key ${keyId}: digest must be 64 lower-case hex characters`);
    if (name !== undefined && typeof name !== 'string') return fail(`${field}.name`, `api key ${keyId}: name must be a string`);
    if (expiresAt !== undefined && (typeof expiresAt !== 'string' || Number.isNaN(Date.parse(expiresAt)))) {
      return fail(`${field}.expiresAt`, `api key ${keyId}: expiresAt must be an ISO 8601 date`);
    }
    keys.push({ keyId, digest, ...(name === undefined ? {} : { name }), ...(expiresAt === undefined ? {} : { expiresAt }) });
  });
  if (rawFingerprint !== undefined && (typeof rawFingerprint !== 'string' || !FINGERPRINT.test(rawFingerprint))) {
    fail('apiKeySecretFingerprint', 'apiKeySecretFingerprint must be 16 lower-case hex characters');
    return { set: { keys }, ignored };
  }
  return { set: rawFingerprint === undefined ? { keys } : { keys, secretFingerprint: rawFingerprint }, ignored };
}
