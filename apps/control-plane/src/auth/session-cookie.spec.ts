import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readCookie, sessionCookieToken, setCookieValue } from './session-cookie';

test('readCookie finds a cookie among others, by exact name, and treats an empty value as absent', () => {
  assert.equal(readCookie('a=1; gateway_session=tok.en; b=2', 'gateway_session'), 'tok.en');
  assert.equal(readCookie('xgateway_session=1', 'gateway_session'), undefined);
  assert.equal(readCookie('gateway_session=', 'gateway_session'), undefined);
  assert.equal(readCookie('malformed; gateway_session=a=b', 'gateway_session'), 'a=b');
  assert.equal(readCookie(undefined, 'gateway_session'), undefined);
});

test('a request with Authorization is a Bearer client: its cookies do not authenticate it', () => {
  assert.equal(sessionCookieToken({ cookie: 'gateway_session=t' }), 't');
  assert.equal(sessionCookieToken({ cookie: 'gateway_session=t', authorization: 'Bearer x' }), undefined);
});

test('Secure only when asked (HTTPS), HttpOnly only for the session cookie', () => {
  assert.equal(setCookieValue('n', 'v', { maxAgeSeconds: 60, httpOnly: true, secure: true }), 'n=v; Path=/; Max-Age=60; SameSite=Strict; HttpOnly; Secure');
  assert.equal(setCookieValue('n', 'v', { maxAgeSeconds: 60, httpOnly: false, secure: false }), 'n=v; Path=/; Max-Age=60; SameSite=Strict');
});
