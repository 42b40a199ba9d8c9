import { DomainError } from '../common/domain-error';

const MAX_RETURN_URL = 2048;

function refuse(message: string): DomainError {
  return new DomainError('VALIDATION_ERROR', message, { fields: [{ field: 'returnUrl', message, code: 'VALIDATION_ERROR' }] });
}

/**
 * Where a login may send the browser back to (open redirect and login CSRF): a path on this
 * origin, or an absolute URL under one of the allow-listed URLs (same origin, path prefix).
 */
export function validateReturnUrl(value: unknown, allowed: readonly string[]): string {
  if (typeof value !== 'string' || value.length === 0) throw refuse('returnUrl must be a non-empty string');
  if (value.length > MAX_RETURN_URL) throw refuse(`returnUrl must be at most ${MAX_RETURN_URL} characters`);
  // Control characters and backslashes let browsers read "/\evil.test" as another host.
  if (/[\u0000-\u001f\u007f\\]/.test(value)) throw refuse('returnUrl holds a control character or a backslash');
  if (value.startsWith('/')) {
    if (value.startsWith('//')) throw refuse('returnUrl must be a path on this origin or an allow-listed URL');
    return value;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse('returnUrl must be a path starting with / or an absolute URL');
  }
  const listed = allowed.some((entry) => {
    const base = new URL(entry);
    const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
    return url.origin === base.origin && (url.pathname === base.pathname || url.pathname.startsWith(prefix) || base.pathname === '/');
  });
  if (!listed || url.username !== '' || url.password !== '') throw refuse('returnUrl is not on this origin nor on authentication.sso.allowedReturnUrls');
  return url.href;
}
