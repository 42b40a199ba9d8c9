import { inflateRawSync } from 'node:zlib';

/** Largest SAMLResponse accepted, base64 characters (real responses are a few kilobytes). */
export const MAX_SAML_RESPONSE_CHARS = 256 * 1024;

/**
 * Checks made before any XML parser sees the message; each failure is a short reason for the
 * audit log (never the message). The HTTP-POST binding carries plain base64 XML: a deflated
 * message (Redirect-binding encoding) is refused, as is any DOCTYPE (entity expansion, XXE).
 */
export function decodeSamlResponse(value: unknown): { xml: string } | { refused: string } {
  if (typeof value !== 'string' || value.length === 0) return { refused: 'SAMLResponse missing' };
  if (value.length > MAX_SAML_RESPONSE_CHARS) return { refused: 'SAMLResponse too large' };
  const compact = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return { refused: 'SAMLResponse is not base64' };
  const xml = Buffer.from(compact, 'base64').toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (!xml.startsWith('<')) return { refused: 'SAMLResponse is not XML (deflated or binary)' };
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return { refused: 'SAMLResponse holds a DOCTYPE or entity declaration' };
  return { xml };
}

/** Largest inflated Redirect-binding message (logout messages are well under a kilobyte). */
const MAX_INFLATED_BYTES = 64 * 1024;

/**
 * A Redirect-binding message (single logout): base64 of raw DEFLATE. Inflated here with a bound
 * first, so a deflate bomb or a DOCTYPE never reaches node-saml's own inflate and parser.
 */
export function checkRedirectMessage(value: unknown): { ok: true } | { refused: string } {
  if (typeof value !== 'string' || value.length === 0) return { refused: 'message missing' };
  if (value.length > MAX_SAML_RESPONSE_CHARS) return { refused: 'message too large' };
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return { refused: 'message is not base64' };
  let xml: string;
  try {
    xml = inflateRawSync(Buffer.from(value, 'base64'), { maxOutputLength: MAX_INFLATED_BYTES }).toString('utf8');
  } catch {
    return { refused: 'message is not deflated or too large' };
  }
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return { refused: 'message holds a DOCTYPE or entity declaration' };
  return { ok: true };
}
