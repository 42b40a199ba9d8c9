/** Decision 12: a client-supplied id is URL-safe and short enough to be a path segment and a metric label. */
export const ROUTE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** `rt_` + 16 base64url characters (96 random bits): URL-safe and matching ROUTE_ID_PATTERN. */
export function generateRouteId(): string {
  // 12 bytes encode to exactly 16 base64url characters, so no padding or partial groups.
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  let out = 'rt_';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += BASE64URL.charAt((n >> 18) & 63) + BASE64URL.charAt((n >> 12) & 63) + BASE64URL.charAt((n >> 6) & 63) + BASE64URL.charAt(n & 63);
  }
  return out;
}
