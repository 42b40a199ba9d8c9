import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIdpMetadata } from './idp-metadata';

const CERT = 'MIIBszCCAVmgAwIBAgIUabc';
const metadata = (inner: string, entity = 'https://idp.test/meta') =>
  `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entity}">` +
  `<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${inner}</md:IDPSSODescriptor></md:EntityDescriptor>`;
const signing = (cert: string, use = ' use="signing"') => `<md:KeyDescriptor${use}><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${cert}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
const sso = (binding: string, location: string, element = 'SingleSignOnService') => `<md:${element} Binding="urn:oasis:names:tc:SAML:2.0:bindings:${binding}" Location="${location}"/>`;

test('entity id, Redirect SSO and SLO URLs, signing certificates (use="signing" or none) as PEM', () => {
  const parsed = parseIdpMetadata(
    metadata(signing(CERT) + signing('MIIBother', '') + signing('MIIBencrypt', ' use="encryption"') + sso('HTTP-POST', 'https://idp.test/post') + sso('HTTP-Redirect', 'https://idp.test/sso') + sso('HTTP-Redirect', 'https://idp.test/slo', 'SingleLogoutService')),
  );
  assert.ok(!('problem' in parsed), JSON.stringify(parsed));
  assert.equal(parsed.entityId, 'https://idp.test/meta');
  assert.equal(parsed.ssoUrl, 'https://idp.test/sso');
  assert.equal(parsed.sloUrl, 'https://idp.test/slo');
  assert.deepEqual(parsed.certificates, [`-----BEGIN CERTIFICATE-----\n${CERT}\n-----END CERTIFICATE-----\n`, '-----BEGIN CERTIFICATE-----\nMIIBother\n-----END CERTIFICATE-----\n']);
});

test('what cannot be used is named', () => {
  const cases: Array<[string, RegExp]> = [
    ['<x/>', /EntityDescriptor/],
    ['<md:EntityDescriptor', /well-formed/],
    [`<!DOCTYPE x [<!ENTITY a "b">]>${metadata('')}`, /DOCTYPE/],
    [metadata(signing(CERT) + sso('HTTP-Redirect', 'https://idp.test/sso'), ''), /entityID/],
    [metadata(signing(CERT) + sso('HTTP-POST', 'https://idp.test/sso')), /HTTP-Redirect SingleSignOnService/],
    [metadata(signing(CERT) + sso('HTTP-Redirect', 'javascript:alert(1)')), /HTTP-Redirect SingleSignOnService/],
    [metadata(signing(CERT, ' use="encryption"') + sso('HTTP-Redirect', 'https://idp.test/sso')), /signing certificate/],
    [`<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>`, /IDPSSODescriptor/],
    ['x'.repeat(300 * 1024), /larger/],
  ];
  for (const [xml, problem] of cases) {
    const parsed = parseIdpMetadata(xml);
    assert.ok('problem' in parsed, xml.slice(0, 80));
    assert.match(parsed.problem, problem);
  }
});
