import assert from 'node:assert/strict';
import { request, type ClientResponse } from '@gateway/testing';
import type { TestIdp, AuthnRequestSeen } from './saml-test-idp';

export const ACS_URL = 'https://gateway.test/api/auth/saml/callback';
export const SP_ENTITY_ID = 'https://gateway.test/api/auth/saml/metadata';
export const ALLOWED_RETURN = 'https://ui.test/admin';

export interface SamlResultView {
  token: string;
  user: { id: string; email: string; name: string; role: string };
  sessionId: string;
  expiresAt: string;
}

export interface StartedLogin {
  seen: AuthnRequestSeen;
  /** What the IdP would have the browser post. */
  form: { SAMLResponse: string; RelayState: string };
  cookie: string;
}

/** proxy.yml (JSON is YAML) with `authentication.sso` trusting the IdP's key and `extraCerts`. */
export function ssoConfig(idp: TestIdp, extra: Record<string, unknown> = {}, extraCerts: string[] = []): string {
  return JSON.stringify({
    version: '1.0.0',
    authentication: {
      sso: {
        enabled: true,
        idpEntityId: idp.entityId,
        idpSsoUrl: idp.ssoUrl,
        idpCertificates: [idp.signing.cert, ...extraCerts],
        acsUrl: ACS_URL,
        clockSkewSeconds: 60,
        allowedReturnUrls: [ALLOWED_RETURN],
        nameAttribute: 'displayName',
        groupsAttribute: 'groups',
        adminGroups: ['gateway-admins'],
        ...extra,
      },
    },
  });
}

export async function initiate(cpUrl: string, returnUrl: string | undefined = '/admin'): Promise<{ res: ClientResponse; redirectUrl: string; cookie: string }> {
  const res = await request(`${cpUrl}/api/auth/saml/initiate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(returnUrl === undefined ? {} : { returnUrl }) });
  const redirectUrl = res.status === 200 ? res.json<{ data: { redirectUrl: string } }>().data.redirectUrl : '';
  return { res, redirectUrl, cookie: (res.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '' };
}

/** initiate, then the browser's visit to the IdP (a real HTTP call): what it would post back. */
export async function startLogin(cpUrl: string, idp: TestIdp): Promise<StartedLogin> {
  const started = await initiate(cpUrl);
  assert.equal(started.res.status, 200, started.res.text);
  const atIdp = await request(started.redirectUrl);
  assert.equal(atIdp.status, 200, atIdp.text);
  return { seen: idp.requests.at(-1) as AuthnRequestSeen, form: atIdp.json(), cookie: started.cookie };
}

export function postCallback(cpUrl: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<ClientResponse> {
  return request(`${cpUrl}/api/auth/saml/callback`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

export function encoded(xml: string): string {
  return Buffer.from(xml).toString('base64');
}
