/**
 * Field names whose values are credentials wherever they appear in a log line: request and
 * response headers (authorization, proxy-authorization, cookie, set-cookie, x-api-key), login and
 * settings bodies (password, token, secret) and SAML posts (SAMLResponse). One list for every
 * plane and the CLI.
 */
export const REDACTED_FIELD_NAMES = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'password', 'token', 'secret', 'SAMLResponse'] as const;

/** What replaces a redacted value (the same word the value-based redaction writes). */
export const REDACTED = '[REDACTED]';

/** `name` as a pino path segment: identifiers as they are, anything else (`set-cookie`) in brackets. */
function segment(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `["${name}"]`;
}

/**
 * The names as pino `redact.paths`: at the top of a line, one level down (`headers.cookie`,
 * `body.password`) and two levels down (`req.headers.authorization`, `res.headers["set-cookie"]`),
 * the shapes pino's own request and response serializers produce.
 */
export const REDACTED_LOG_PATHS: readonly string[] = REDACTED_FIELD_NAMES.flatMap((name) => {
  const tail = segment(name);
  const top = tail.startsWith('.') ? tail.slice(1) : tail;
  return [top, `*${tail}`, `*.*${tail}`, `req.headers${tail}`, `res.headers${tail}`];
});
