import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import tls from 'node:tls';
import type { FieldError, TlsCertificateFiles } from '@gateway/route-model';

/** The contexts of one load of `proxy.tls.certificates`, looked up by SNI name. */
export interface CertificateSet {
  /** The first certificate: served without SNI or when no name matches. */
  readonly fallback: tls.SecureContext;
  /** The first certificate's PEM texts: the server's default context (a client without SNI) is built from them. */
  readonly fallbackPem: { readonly cert: string; readonly key: string };
  readonly exact: ReadonlyMap<string, tls.SecureContext>;
  /** `*.example.com` stored under `example.com`. */
  readonly wildcard: ReadonlyMap<string, tls.SecureContext>;
  /** Names served, for the log line (never key material). */
  readonly names: readonly string[];
}

export type CertificateLoad = { ok: true; set: CertificateSet } | { ok: false; errors: FieldError[] };

/**
 * The context for an SNI name: an exact name first, then a wildcard of its leftmost label only
 * (RFC 6125 6.4.3: `*.example.com` covers `a.example.com`, not `example.com` nor `a.b.example.com`).
 */
export function contextFor(set: CertificateSet, serverName: string | undefined): tls.SecureContext {
  if (serverName === undefined || serverName === '') return set.fallback;
  const name = serverName.toLowerCase();
  const exact = set.exact.get(name);
  if (exact !== undefined) return exact;
  const dot = name.indexOf('.');
  return (dot === -1 ? undefined : set.wildcard.get(name.slice(dot + 1))) ?? set.fallback;
}

/**
 * Reads every certificate and key file and builds their contexts, or names each field that failed
 * and why (missing, unreadable, not PEM, key not matching). Messages carry file paths and
 * OpenSSL's reason, never file contents: a key must not reach a log line.
 */
export async function loadCertificates(
  certificates: readonly TlsCertificateFiles[],
  minVersion: tls.SecureVersion,
  field = 'proxy.tls.certificates',
): Promise<CertificateLoad> {
  const errors: FieldError[] = [];
  const loaded: Array<{ context: tls.SecureContext; names: string[]; pem: { cert: string; key: string } }> = [];
  for (const [i, entry] of certificates.entries()) {
    const at = `${field}[${i}]`;
    const cert = await readPem(entry.certFile, `${at}.certFile`, errors);
    const key = await readPem(entry.keyFile, `${at}.keyFile`, errors);
    if (cert === undefined || key === undefined) continue;
    let names: string[];
    try {
      names = entry.serverNames ?? certificateNames(cert);
    } catch (error) {
      errors.push(fileError(`${at}.certFile`, `${entry.certFile} is not a PEM certificate (${reason(error)})`));
      continue;
    }
    try {
      // The version floor belongs to each context: the one SNI picks replaces the server's.
      loaded.push({ context: tls.createSecureContext({ cert, key, minVersion }), names, pem: { cert, key } });
    } catch (error) {
      errors.push(fileError(at, `${entry.certFile} and ${entry.keyFile} do not make a usable certificate (${reason(error)})`));
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  const first = loaded[0];
  if (first === undefined) return { ok: false, errors: [fileError(field, `${field} must not be empty`)] };
  const exact = new Map<string, tls.SecureContext>();
  const wildcard = new Map<string, tls.SecureContext>();
  const names: string[] = [];
  for (const { context, names: served } of loaded) {
    for (const name of served) {
      const lower = name.toLowerCase();
      const map = lower.startsWith('*.') ? wildcard : exact;
      const keyName = lower.startsWith('*.') ? lower.slice(2) : lower;
      // The first certificate naming a host wins, as the list's order says.
      if (map.has(keyName)) continue;
      map.set(keyName, context);
      names.push(lower);
    }
  }
  return { ok: true, set: { fallback: first.context, fallbackPem: first.pem, exact, wildcard, names } };
}

async function readPem(file: string, field: string, errors: FieldError[]): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    errors.push(fileError(field, code === 'ENOENT' ? `${file} does not exist` : `${file} cannot be read (${code ?? 'error'})`));
    return undefined;
  }
}

/** The DNS names of a certificate's subjectAltName, else its common name. */
function certificateNames(pem: string): string[] {
  const x509 = new X509Certificate(pem);
  const dns = (x509.subjectAltName ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('DNS:'))
    .map((part) => part.slice(4));
  if (dns.length > 0) return dns;
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(x509.subject)?.[1];
  return cn === undefined ? [] : [cn];
}

/** OpenSSL's reason without anything read from the file. */
function reason(error: unknown): string {
  const e = error as { code?: string; reason?: string; message?: string };
  return e.reason ?? e.code ?? 'invalid';
}

function fileError(field: string, message: string): FieldError {
  return { field, message, code: 'TLS_CERTIFICATE_INVALID' };
}
