/*
 * What leaves the gateway for an AI provider is redacted here, once: secrets by key name and by
 * shape (bearer tokens, JWTs, key=value credentials, long hex or base64 runs), and client
 * addresses unless a setting allows them.
 */
const SECRET_KEY = /secret|token|password|passwd|authorization|cookie|api[-_]?key|credential|private[-_]?key|signature/i;
const ADDRESS_KEY = /(^|_|-)(ip|client|remote|address|addr)($|_|-)|clientip|remoteaddress/i;
const PATTERNS: Array<[RegExp, string]> = [
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, '$1 [REDACTED]'],
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g, '[REDACTED-JWT]'],
  [/\b((?:api[-_]?key|token|secret|password|passwd|authorization|cookie)\s*[=:]\s*)("?)[^\s",;]+/gi, '$1$2[REDACTED]'],
  [/\b(sk|pk|rk|ghp|gho|xox[abp])[-_][A-Za-z0-9_-]{6,}/g, '[REDACTED-KEY]'],
  [/\b[A-Fa-f0-9]{32,}\b/g, '[REDACTED-HEX]'],
];
const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/g;
const IPV6 = /\b(?:[A-Fa-f0-9]{1,4}:){3,7}[A-Fa-f0-9]{1,4}\b/g;

export function redactText(value: string, includeClientAddresses: boolean): string {
  let out = value;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  if (!includeClientAddresses) out = out.replace(IPV4, '[ADDRESS]').replace(IPV6, '[ADDRESS]');
  return out;
}

/** A deep copy with secret keys dropped, address keys dropped (unless allowed) and every string redacted. */
export function redact(value: unknown, includeClientAddresses: boolean, depth = 0): unknown {
  if (depth > 8) return '[TOO DEEP]';
  if (typeof value === 'string') return redactText(value, includeClientAddresses);
  if (Array.isArray(value)) return value.map((v) => redact(v, includeClientAddresses, depth + 1));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (SECRET_KEY.test(key)) continue;
      if (!includeClientAddresses && ADDRESS_KEY.test(key)) continue;
      out[key] = redact(v, includeClientAddresses, depth + 1);
    }
    return out;
  }
  return value;
}
