/**
 * The admin UI's Content-Security-Policy: scripts, styles and API calls from this origin only, no
 * inline script or style, no framing. The UI is built to need nothing more (docs/admin-ui.md), and
 * test/ui fails on any violation.
 */
export const ADMIN_UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Hashed file names change with their content: a year, never revalidated. */
export const IMMUTABLE_ASSET_CACHE = 'public, max-age=31536000, immutable';

/** The index names the current hashes: always revalidated. */
export const INDEX_CACHE = 'no-cache';
