import { DOMParser } from '@xmldom/xmldom';

const METADATA_NS = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** Largest IdP metadata document imported (real ones are a few kilobytes; aggregates are refused). */
export const MAX_IDP_METADATA_CHARS = 256 * 1024;

/** What an IdP's metadata tells us: who it is, where to send requests, which keys sign. */
export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  sloUrl?: string;
  certificates: string[];
}

interface Node {
  readonly nodeType: number;
  readonly namespaceURI: string | null;
  readonly localName: string | null;
  readonly firstChild: Node | null;
  readonly nextSibling: Node | null;
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
}

function children(parent: Node, namespace: string, localName: string): Node[] {
  const found: Node[] = [];
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === 1 && node.namespaceURI === namespace && node.localName === localName) found.push(node);
  }
  return found;
}

function descendants(parent: Node, namespace: string, localName: string): Node[] {
  const found: Node[] = [];
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType !== 1) continue;
    if (node.namespaceURI === namespace && node.localName === localName) found.push(node);
    found.push(...descendants(node, namespace, localName));
  }
  return found;
}

/** A base64 DER certificate as PEM, 64 characters a line. */
function toPem(base64: string): string {
  const body = base64.replace(/\s+/g, '');
  return `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
}

/**
 * Reads an IdP's EntityDescriptor (SAML metadata 2.4.3): entityID, the HTTP-Redirect
 * SingleSignOnService and SingleLogoutService, and the signing certificates (KeyDescriptor
 * use="signing" or without use). Answers the reason it cannot be used, for the field error.
 * A DOCTYPE is refused before parsing (entity expansion), like a SAML message.
 */
export function parseIdpMetadata(xml: string): IdpMetadata | { problem: string } {
  if (xml.length > MAX_IDP_METADATA_CHARS) return { problem: `is larger than ${MAX_IDP_METADATA_CHARS / 1024} KiB` };
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return { problem: 'must not hold a DOCTYPE or entity declaration' };
  const errors: string[] = [];
  const doc = new DOMParser({ errorHandler: { warning: () => undefined, error: (m) => errors.push(String(m)), fatalError: (m) => errors.push(String(m)) } }).parseFromString(xml, 'text/xml');
  const root = doc.documentElement as unknown as Node | null;
  if (errors.length > 0 || root === null) return { problem: 'is not well-formed XML' };
  if (root.namespaceURI !== METADATA_NS || root.localName !== 'EntityDescriptor') return { problem: 'must be one md:EntityDescriptor' };
  const entityId = (root.getAttribute('entityID') ?? '').trim();
  if (entityId === '') return { problem: 'has no entityID' };
  const idp = children(root, METADATA_NS, 'IDPSSODescriptor')[0];
  if (idp === undefined) return { problem: 'has no IDPSSODescriptor' };
  const redirect = (name: string) => children(idp, METADATA_NS, name).find((service) => service.getAttribute('Binding') === REDIRECT_BINDING)?.getAttribute('Location') || undefined;
  const ssoUrl = redirect('SingleSignOnService');
  if (ssoUrl === undefined || !/^https?:\/\//.test(ssoUrl)) return { problem: 'has no HTTP-Redirect SingleSignOnService with an http(s) Location' };
  const certificates = children(idp, METADATA_NS, 'KeyDescriptor')
    // No use attribute: the key serves both purposes (metadata 2.4.1.1); xmldom reads a missing attribute as ''.
    .filter((key) => ['', 'signing'].includes(key.getAttribute('use') ?? ''))
    .flatMap((key) => descendants(key, DSIG_NS, 'X509Certificate'))
    .map((cert) => (cert.textContent ?? '').trim())
    .filter((cert) => /^[A-Za-z0-9+/=\s]+$/.test(cert) && cert.length > 0)
    .map(toPem);
  if (certificates.length === 0) return { problem: 'has no signing certificate (KeyDescriptor X509Certificate)' };
  const sloUrl = redirect('SingleLogoutService');
  const metadata: IdpMetadata = { entityId, ssoUrl, certificates };
  if (sloUrl !== undefined && /^https?:\/\//.test(sloUrl)) metadata.sloUrl = sloUrl;
  return metadata;
}
