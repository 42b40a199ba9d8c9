import { Transform } from 'class-transformer';

/** Strings are stored trimmed (issue 14: sanitization). Non-strings pass through to the validator. */
export const Trimmed = (): PropertyDecorator => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/**
 * Display fields never carry markup: the admin UI and e-mails show them as text. Tags (and what
 * is left of a broken one) are removed, then the result is trimmed.
 */
export function stripMarkup(value: string): string {
  return value.replace(/<[^>]*>?/g, '').replace(/[<>]/g, '').trim();
}

export const DisplayText = (): PropertyDecorator => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? stripMarkup(value) : value));

/**
 * `scheme://host[:port]` lower-cased, without path or trailing slash (what a browser sends as
 * Origin); anything that is not an http(s) origin is left as given for the validator to name.
 */
export function normalizeOrigin(value: string): string {
  try {
    const url = new URL(value.trim());
    if ((url.protocol === 'http:' || url.protocol === 'https:') && (url.pathname === '/' || url.pathname === '') && url.search === '' && url.hash === '' && url.username === '' && url.password === '') {
      return url.origin;
    }
  } catch {
    // Not a URL: the validator reports it.
  }
  return value.trim();
}

/** Each origin normalized; the same origin given twice (in any spelling) is kept once. */
export const NormalizedOrigins = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? [...new Set(value.map((entry: unknown) => (typeof entry === 'string' ? normalizeOrigin(entry) : entry)))] : value));

export function isHttpOrigin(value: unknown): boolean {
  return typeof value === 'string' && normalizeOrigin(value) === value && /^https?:\/\/[^/]+$/.test(value);
}
