import { DOMParser } from '@xmldom/xmldom';
import type { SamlSettings } from './saml-settings';

const ASSERTION_NS = 'urn:oasis:names:tc:SAML:2.0:assertion';
const PROTOCOL_NS = 'urn:oasis:names:tc:SAML:2.0:protocol';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

/** What a login may use from an assertion; read only from the XML whose signature was verified. */
export interface SignedAssertion {
  id: string;
  issuer: string;
  nameId: string;
  nameIdFormat?: string;
  /** The IdP's session (AuthnStatement SessionIndex): what its single logout names. */
  sessionIndex?: string;
  attributes: ReadonlyMap<string, string[]>;
  /** The earliest NotOnOrAfter: how long the ID must be remembered against replay. */
  notOnOrAfter?: Date;
}

/** The few DOM members read here (the project compiles without the DOM lib). */
interface Element {
  readonly nodeType: number;
  readonly namespaceURI: string | null;
  readonly localName: string | null;
  readonly firstChild: Element | null;
  readonly nextSibling: Element | null;
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
}

function children(parent: Element, namespace: string, localName: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === 1 && node.namespaceURI === namespace && node.localName === localName) found.push(node);
  }
  return found;
}

/** textContent joins text nodes and skips comments: `a@x<!---->.evil` reads as the whole signed value. */
function text(element: Element | undefined): string {
  return (element?.textContent ?? '').trim();
}

function parse(xml: string): Element | undefined {
  const errors: string[] = [];
  const doc = new DOMParser({ errorHandler: { warning: () => undefined, error: (m) => errors.push(String(m)), fatalError: (m) => errors.push(String(m)) } }).parseFromString(xml, 'text/xml');
  return errors.length > 0 || !doc.documentElement ? undefined : (doc.documentElement as unknown as Element);
}

/**
 * node-saml leaves these unchecked (node-saml #405 and its status handling): the response's
 * Destination and Issuer and its status. The root was verified by node-saml
 * (`wantAuthnResponseSigned`), so its attributes are signed. Answers the refusal reason, if any.
 */
export function checkResponseEnvelope(responseXml: string, settings: SamlSettings): string | undefined {
  const root = parse(responseXml);
  if (root === undefined || root.namespaceURI !== PROTOCOL_NS || root.localName !== 'Response') return 'not a SAML Response';
  if (root.getAttribute('Destination') !== settings.acsUrl) return 'wrong Destination';
  const issuers = children(root, ASSERTION_NS, 'Issuer');
  if (issuers.length !== 1 || text(issuers[0]) !== settings.idpEntityId) return 'wrong Issuer';
  const status = children(root, PROTOCOL_NS, 'Status')[0];
  const code = status === undefined ? undefined : children(status, PROTOCOL_NS, 'StatusCode')[0];
  if (code?.getAttribute('Value') !== SUCCESS) return 'status is not Success';
  return undefined;
}

/** The signed assertion's values, or the refusal reason (wrong issuer or Recipient, no subject). */
export function readSignedAssertion(assertionXml: string, settings: SamlSettings): SignedAssertion | { refused: string } {
  const root = parse(assertionXml);
  if (root === undefined || root.namespaceURI !== ASSERTION_NS || root.localName !== 'Assertion') return { refused: 'signed content is not an assertion' };
  const id = root.getAttribute('ID') ?? '';
  if (id === '') return { refused: 'assertion has no ID' };
  const issuer = text(children(root, ASSERTION_NS, 'Issuer')[0]);
  if (issuer !== settings.idpEntityId) return { refused: 'wrong Issuer' };
  const subject = children(root, ASSERTION_NS, 'Subject')[0];
  if (subject === undefined) return { refused: 'assertion has no Subject' };
  const nameIdElement = children(subject, ASSERTION_NS, 'NameID')[0];
  const nameId = text(nameIdElement);
  if (nameId === '') return { refused: 'assertion has no NameID' };
  const deadlines: number[] = [];
  const bearers = children(subject, ASSERTION_NS, 'SubjectConfirmation').filter((c) => c.getAttribute('Method') === BEARER);
  if (bearers.length === 0) return { refused: 'no bearer SubjectConfirmation' };
  for (const confirmation of bearers) {
    const data = children(confirmation, ASSERTION_NS, 'SubjectConfirmationData')[0];
    // SAML profiles 4.1.4.3: the Recipient MUST be our ACS URL (every bearer confirmation).
    if (data?.getAttribute('Recipient') !== settings.acsUrl) return { refused: 'wrong Recipient' };
    const until = Date.parse(data.getAttribute('NotOnOrAfter') ?? '');
    if (Number.isFinite(until)) deadlines.push(until);
  }
  const conditions = children(root, ASSERTION_NS, 'Conditions')[0];
  const conditionsUntil = Date.parse(conditions?.getAttribute('NotOnOrAfter') ?? '');
  if (Number.isFinite(conditionsUntil)) deadlines.push(conditionsUntil);
  const attributes = new Map<string, string[]>();
  for (const statement of children(root, ASSERTION_NS, 'AttributeStatement')) {
    for (const attribute of children(statement, ASSERTION_NS, 'Attribute')) {
      const name = attribute.getAttribute('Name') ?? '';
      const values = children(attribute, ASSERTION_NS, 'AttributeValue').map((value) => text(value));
      attributes.set(name, [...(attributes.get(name) ?? []), ...values]);
    }
  }
  const assertion: SignedAssertion = { id, issuer, nameId, attributes };
  const sessionIndex = children(root, ASSERTION_NS, 'AuthnStatement')[0]?.getAttribute('SessionIndex');
  if (sessionIndex) assertion.sessionIndex = sessionIndex.slice(0, 256);
  const nameIdFormat = nameIdElement?.getAttribute('Format');
  if (nameIdFormat) assertion.nameIdFormat = nameIdFormat.slice(0, 256);
  if (deadlines.length > 0) assertion.notOnOrAfter = new Date(Math.min(...deadlines));
  return assertion;
}

/**
 * Whether a response claims to answer no request: neither the Response nor any bearer
 * confirmation carries InResponseTo. Read before the signature is checked, only to choose the
 * path; the strategy then refuses any InResponseTo on that path (nothing vouches for it).
 */
export function isUnsolicited(responseXml: string): boolean {
  return !/\bInResponseTo\s*=/.test(responseXml);
}
