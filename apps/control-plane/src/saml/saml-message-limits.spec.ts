import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { decodeSamlResponse, MAX_SAML_RESPONSE_CHARS } from './saml-message-limits';

const b64 = (text: string | Buffer): string => Buffer.from(text).toString('base64');

test('plain base64 XML passes, line breaks and a BOM tolerated', () => {
  assert.deepEqual(decodeSamlResponse(b64('<samlp:Response/>')), { xml: '<samlp:Response/>' });
  assert.deepEqual(decodeSamlResponse(b64('\uFEFF <r/>').replace(/(.{4})/g, '$1\r\n')), { xml: '<r/>' });
});

test('each refusal names its reason', () => {
  assert.deepEqual(decodeSamlResponse(undefined), { refused: 'SAMLResponse missing' });
  assert.deepEqual(decodeSamlResponse('A'.repeat(MAX_SAML_RESPONSE_CHARS + 1)), { refused: 'SAMLResponse too large' });
  assert.deepEqual(decodeSamlResponse('<r/>'), { refused: 'SAMLResponse is not base64' });
  assert.deepEqual(decodeSamlResponse(deflateRawSync(Buffer.from('<r/>')).toString('base64')), { refused: 'SAMLResponse is not XML (deflated or binary)' });
  assert.deepEqual(decodeSamlResponse(b64('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>')), { refused: 'SAMLResponse holds a DOCTYPE or entity declaration' });
  assert.deepEqual(decodeSamlResponse(b64('<r><!doctype x></r>')), { refused: 'SAMLResponse holds a DOCTYPE or entity declaration' });
});
