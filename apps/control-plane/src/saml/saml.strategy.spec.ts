import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inflateRawSync } from 'node:zlib';
import { runStrategy } from './passport-outcome';
import type { SamlSettings } from './saml-settings';
import { samlRequest, SamlStrategy } from './saml.strategy';

const settings = (overrides: Partial<SamlSettings> = {}): SamlSettings => ({
  idpEntityId: 'https://idp.test',
  idpSsoUrl: 'https://idp.test/sso',
  idpCertificates: ['MIIB'],
  spEntityId: 'https://gw.test/sp',
  acsUrl: 'https://gw.test/api/auth/saml/callback',
  clockSkewMs: 0,
  defaultReturnUrl: '/',
  allowedReturnUrls: [],
  adminGroups: [],
  allowIdpInitiated: false,
  ...overrides,
});

function authnRequest(url: string): string {
  return inflateRawSync(Buffer.from(new URL(url).searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
}

test('a login request: the strategy redirects to the live IdP address with the ID our store chose', async () => {
  const strategy = new SamlStrategy();
  const first = await runStrategy(strategy, samlRequest(settings(), { body: { RelayState: 'relay-1' } }, { requestId: '_chosen-1' }), {});
  assert.equal(first.kind, 'redirect');
  const url = first.kind === 'redirect' ? first.url : '';
  assert.ok(url.startsWith('https://idp.test/sso?'));
  assert.equal(new URL(url).searchParams.get('RelayState'), 'relay-1');
  assert.match(authnRequest(url), /ID="_chosen-1"/);
  assert.match(authnRequest(url), /AssertionConsumerServiceURL="https:\/\/gw\.test\/api\/auth\/saml\/callback"/);
  // Settings changed between two requests: the same strategy follows them (no restart).
  const second = await runStrategy(strategy, samlRequest(settings({ idpSsoUrl: 'https://idp2.test/login' }), { body: { RelayState: 'relay-2' } }, { requestId: '_chosen-2' }), {});
  assert.ok(second.kind === 'redirect' && second.url.startsWith('https://idp2.test/login?'));
});

test('a request the caller did not prepare is an error, never a login', async () => {
  const outcome = await runStrategy(new SamlStrategy(), { body: { SAMLResponse: 'PHg+' }, query: {}, url: '/', headers: {} } as never, {});
  assert.equal(outcome.kind, 'error');
});

test('a response that is not a signed SAML response is an error outcome', async () => {
  const outcome = await runStrategy(new SamlStrategy(), samlRequest(settings(), { body: { SAMLResponse: Buffer.from('<Response/>').toString('base64') } }), {});
  assert.equal(outcome.kind, 'error');
});
