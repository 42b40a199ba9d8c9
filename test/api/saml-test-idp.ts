import { createSign, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { makeSelfSignedCert } from '@gateway/testing';
import { SignedXml } from 'xml-crypto';

const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
export const ASSERTION_XPATH = "/*[local-name(.)='Response']/*[local-name(.)='Assertion']";

export interface SigningKey {
  key: string;
  cert: string;
}

/** A throwaway RSA key and certificate made by openssl (no key is committed). */
export function makeSigningKey(): SigningKey {
  const made = makeSelfSignedCert();
  made.remove();
  return { key: made.key, cert: made.cert };
}

/** Enveloped RSA-SHA256 signature over the element at `reference`, placed after its Issuer. */
export function signElement(xml: string, reference: string, key: string): string {
  const sig = new SignedXml({ privateKey: key, canonicalizationAlgorithm: EXC_C14N, signatureAlgorithm: RSA_SHA256 });
  sig.addReference({ xpath: reference, digestAlgorithm: SHA256, transforms: [ENVELOPED, EXC_C14N] });
  sig.computeSignature(xml, { prefix: 'ds', location: { reference: `${reference}/*[local-name(.)='Issuer']`, action: 'after' } });
  return sig.getSignedXml();
}

export interface AuthnRequestSeen {
  id: string;
  acsUrl: string;
  issuer: string;
  relayState: string;
  /** The query carried SigAlg and Signature (a signed Redirect-binding request). */
  signed: boolean;
}

/** A LogoutRequest the IdP received from the SP (SP-initiated single logout). */
export interface LogoutRequestSeen {
  id: string;
  nameId: string;
  nameIdFormat: string;
  sessionIndex: string;
  relayState: string;
  signed: boolean;
}

/** An HTTP-Redirect binding URL, signed RSA-SHA256 over the query as the binding defines (3.4.4.1). */
export function signedRedirect(base: string, kind: 'SAMLRequest' | 'SAMLResponse', xml: string, relayState: string | undefined, key: string | undefined): string {
  let query = `${kind}=${encodeURIComponent(deflateRawSync(Buffer.from(xml)).toString('base64'))}`;
  if (relayState !== undefined) query += `&RelayState=${encodeURIComponent(relayState)}`;
  if (key === undefined) return `${base}?${query}`;
  query += `&SigAlg=${encodeURIComponent(RSA_SHA256)}`;
  return `${base}?${query}&Signature=${encodeURIComponent(createSign('RSA-SHA256').update(query).sign(key, 'base64'))}`;
}

export interface ResponseOptions {
  inResponseTo?: string | null;
  issuer?: string;
  assertionIssuer?: string;
  audience?: string;
  recipient?: string;
  destination?: string | null;
  status?: string;
  nameId?: string;
  attributes?: Record<string, string[]>;
  /** Seconds from now. */
  notBeforeOffset?: number;
  notOnOrAfterOffset?: number;
  issueInstantOffset?: number;
  assertionId?: string;
  signResponse?: boolean;
  signAssertion?: boolean;
  key?: string;
  /** Applied to the XML after the assertion is signed and before the response is (attack layouts). */
  afterAssertionSigned?: (xml: string) => string;
}

function iso(offsetSeconds: number): string {
  return new Date(Date.now() + offsetSeconds * 1000).toISOString();
}

function escape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A SAML 2.0 identity provider on loopback: GET /sso takes an HTTP-Redirect AuthnRequest and
 * answers the HTTP-POST form fields as JSON (what a browser would post to the ACS URL). A browser
 * (Accept: text/html) gets a login page instead: POST /login with the right username answers the
 * auto-submitting HTTP-POST binding form to the ACS URL, as a real IdP does.
 */
export class TestIdp {
  readonly signing = makeSigningKey();
  readonly entityId: string;
  readonly ssoUrl: string;
  readonly requests: AuthnRequestSeen[] = [];
  /** Who the IdP signs in, and the default response options. */
  user: { nameId: string; attributes: Record<string, string[]> } = { nameId: 'ada@example.com', attributes: {} };
  spEntityId = '';
  /** The SP's single logout endpoint (from its metadata, in a real deployment). */
  spSloUrl = '';
  readonly sloUrl: string;
  readonly logoutRequests: LogoutRequestSeen[] = [];
  /** The SessionIndex of the last login response. */
  lastSessionIndex = '';

  private constructor(private readonly server: Server, port: number) {
    this.entityId = `http://127.0.0.1:${port}/idp`;
    this.ssoUrl = `http://127.0.0.1:${port}/sso`;
    this.sloUrl = `http://127.0.0.1:${port}/slo`;
  }

  static async start(): Promise<TestIdp> {
    // The server exists before the IdP object that answers for it.
    const holder: { idp?: TestIdp } = {};
    const server = createServer((req, res) => {
      const idp = holder.idp;
      const url = new URL(req.url ?? '/', 'http://idp');
      if (idp === undefined) return void res.writeHead(404).end();
      if (url.pathname === '/sso' && (req.headers.accept ?? '').includes('text/html')) return void idp.loginPage(url, res);
      if (url.pathname === '/login' && req.method === 'POST') return void idp.signIn(req, res);
      if (url.pathname === '/slo') return void idp.singleLogout(url, res);
      if (url.pathname !== '/sso') return void res.writeHead(404).end();
      try {
        const seen = idp.readRequest(url);
        idp.requests.push(seen);
        const SAMLResponse = Buffer.from(idp.response(seen)).toString('base64');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ SAMLResponse, RelayState: seen.relayState }));
      } catch (error) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.idp = new TestIdp(server, (server.address() as AddressInfo).port);
    return holder.idp;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The IdP's own sign-in form; the AuthnRequest rides along in a hidden field. */
  private loginPage(url: URL, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
      `<!doctype html><html lang="en"><head><title>Test IdP</title><link rel="icon" href="data:,"></head><body><main><h1>Test IdP sign in</h1>` +
        `<form method="post" action="/login"><input type="hidden" name="query" value="${escape(url.search)}">` +
        `<label for="username">Username</label><input id="username" name="username"><button type="submit">Sign in at the IdP</button></form></main></body></html>`,
    );
  }

  private signIn(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (form.get('username') !== this.user.nameId) return void res.writeHead(403, { 'content-type': 'text/html' }).end('<!doctype html><title>Test IdP</title><p>Unknown user</p>');
      try {
        const seen = this.readRequest(new URL(`http://idp/sso${form.get('query') ?? ''}`));
        this.requests.push(seen);
        const SAMLResponse = Buffer.from(this.response(seen)).toString('base64');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
          `<!doctype html><html lang="en"><head><title>Test IdP</title><link rel="icon" href="data:,"></head><body onload="document.forms[0].submit()">` +
            `<form method="post" action="${escape(seen.acsUrl)}"><input type="hidden" name="SAMLResponse" value="${SAMLResponse}">` +
            `<input type="hidden" name="RelayState" value="${escape(seen.relayState)}"><noscript><button type="submit">Continue</button></noscript></form></body></html>`,
        );
      } catch (error) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      }
    });
  }

  /** SP-initiated logout: record the LogoutRequest, answer a signed LogoutResponse to the SP's SLO endpoint. */
  private singleLogout(url: URL, res: ServerResponse): void {
    try {
      const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
      const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
      if (root === null || root.localName !== 'LogoutRequest') throw new Error('not a LogoutRequest');
      const nameIdElement = root.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'NameID')[0];
      const seen: LogoutRequestSeen = {
        id: root.getAttribute('ID') ?? '',
        nameId: nameIdElement?.textContent ?? '',
        nameIdFormat: nameIdElement?.getAttribute('Format') ?? '',
        sessionIndex: root.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:protocol', 'SessionIndex')[0]?.textContent ?? '',
        relayState: url.searchParams.get('RelayState') ?? '',
        signed: url.searchParams.has('Signature') && url.searchParams.has('SigAlg'),
      };
      this.logoutRequests.push(seen);
      res.writeHead(302, { location: signedRedirect(this.spSloUrl, 'SAMLResponse', this.logoutResponse(seen.id), seen.relayState, this.signing.key) }).end();
    } catch (error) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
    }
  }

  logoutResponse(inResponseTo: string, status = 'urn:oasis:names:tc:SAML:2.0:status:Success'): string {
    return (
      `<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_lr${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${iso(0)}" Destination="${escape(this.spSloUrl)}" InResponseTo="${escape(inResponseTo)}">` +
      `<saml:Issuer>${escape(this.entityId)}</saml:Issuer><samlp:Status><samlp:StatusCode Value="${status}"/></samlp:Status></samlp:LogoutResponse>`
    );
  }

  /** IdP-initiated logout: the Redirect-binding URL of a LogoutRequest to the SP (signed unless `key` is null). */
  logoutRequestUrl(nameId: string, options: { sessionIndex?: string; key?: string | null; issuer?: string; relayState?: string } = {}): string {
    const xml =
      `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_l${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${iso(0)}" Destination="${escape(this.spSloUrl)}" NotOnOrAfter="${iso(300)}">` +
      `<saml:Issuer>${escape(options.issuer ?? this.entityId)}</saml:Issuer><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${escape(nameId)}</saml:NameID>` +
      (options.sessionIndex === undefined ? '' : `<samlp:SessionIndex>${escape(options.sessionIndex)}</samlp:SessionIndex>`) +
      `</samlp:LogoutRequest>`;
    return signedRedirect(this.spSloUrl, 'SAMLRequest', xml, options.relayState, options.key === null ? undefined : (options.key ?? this.signing.key));
  }

  private readRequest(url: URL): AuthnRequestSeen {
    const encoded = url.searchParams.get('SAMLRequest');
    if (encoded === null) throw new Error('no SAMLRequest');
    const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
    const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
    if (root === null || root.localName !== 'AuthnRequest') throw new Error('not an AuthnRequest');
    const issuer = root.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Issuer')[0]?.textContent ?? '';
    return {
      id: root.getAttribute('ID') ?? '',
      acsUrl: root.getAttribute('AssertionConsumerServiceURL') ?? '',
      issuer,
      relayState: url.searchParams.get('RelayState') ?? '',
      signed: url.searchParams.has('Signature') && url.searchParams.has('SigAlg'),
    };
  }

  /** A signed Response XML for a request (or unsolicited), shaped by `options`. */
  response(request: Pick<AuthnRequestSeen, 'id' | 'acsUrl'> & Partial<AuthnRequestSeen>, options: ResponseOptions = {}): string {
    const inResponseTo = options.inResponseTo === undefined ? request.id : options.inResponseTo;
    const irt = inResponseTo === null ? '' : ` InResponseTo="${escape(inResponseTo)}"`;
    const destination = options.destination === undefined ? request.acsUrl : options.destination;
    const nameId = options.nameId ?? this.user.nameId;
    const attributes = options.attributes ?? this.user.attributes;
    const assertionId = options.assertionId ?? `_a${randomBytes(16).toString('hex')}`;
    const now = iso(options.issueInstantOffset ?? 0);
    const sessionIndex = `_s${randomBytes(8).toString('hex')}`;
    this.lastSessionIndex = sessionIndex;
    const attributeXml = Object.entries(attributes)
      .map(([name, values]) => `<saml:Attribute Name="${escape(name)}">${values.map((v) => `<saml:AttributeValue>${escape(v)}</saml:AttributeValue>`).join('')}</saml:Attribute>`)
      .join('');
    let xml =
      `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${now}"${destination === null ? '' : ` Destination="${escape(destination)}"`}${irt}>` +
      `<saml:Issuer>${escape(options.issuer ?? this.entityId)}</saml:Issuer>` +
      `<samlp:Status><samlp:StatusCode Value="${options.status ?? 'urn:oasis:names:tc:SAML:2.0:status:Success'}"/></samlp:Status>` +
      `<saml:Assertion ID="${assertionId}" Version="2.0" IssueInstant="${now}">` +
      `<saml:Issuer>${escape(options.assertionIssuer ?? options.issuer ?? this.entityId)}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${escape(nameId)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${irt} NotOnOrAfter="${iso(options.notOnOrAfterOffset ?? 300)}" Recipient="${escape(options.recipient ?? request.acsUrl)}"/></saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${iso(options.notBeforeOffset ?? -5)}" NotOnOrAfter="${iso(options.notOnOrAfterOffset ?? 300)}"><saml:AudienceRestriction><saml:Audience>${escape(options.audience ?? this.spEntityId)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${now}" SessionIndex="${sessionIndex}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      (attributeXml === '' ? '' : `<saml:AttributeStatement>${attributeXml}</saml:AttributeStatement>`) +
      `</saml:Assertion></samlp:Response>`;
    const key = options.key ?? this.signing.key;
    if (options.signAssertion ?? true) xml = signElement(xml, ASSERTION_XPATH, key);
    if (options.afterAssertionSigned !== undefined) xml = options.afterAssertionSigned(xml);
    if (options.signResponse ?? true) xml = signElement(xml, "/*[local-name(.)='Response']", key);
    return xml;
  }
}
