import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readServerSentEvents, type ServerSentEvent } from '@gateway/testing';
import { ADMIN, ADMIN_ENV, caller, JWT_SECRET, login, managementToken, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

/*
 * Who may hold GET /api/monitoring/stream open, and for how long (issue 12, docs/telemetry.md):
 * the Bearer header of a fetch-based reader or the admin UI's session cookie, never a token in the
 * URL; the stream ends with an `end` event and closes when its token expires or is revoked (logout,
 * deleted user); an open stream is one request of the admin rate-limit tier however long it lasts.
 */

/** Reads the stream until the server closes it (every event it sent). */
const untilClosed = (res: Response): Promise<ServerSentEvent[]> => readServerSentEvents(res, () => false);

const endReason = (events: ServerSentEvent[]): unknown => {
  const last = events.at(-1);
  assert.equal(last?.event, 'end', `the stream ends with an end event (got ${JSON.stringify(events.slice(-2))})`);
  return (JSON.parse(last.data) as { reason: unknown }).reason;
};

describe('monitoring stream: authentication and end of token', () => {
  let cp: ControlPlaneProcess;
  let call: Call;
  let adminToken: string;

  before(async () => {
    // Many logins below: the credentials tier (5 per 15 minutes) is not what this suite checks.
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, API_RATE_LIMIT_CREDENTIALS_MAX: '100' } });
    call = caller(cp);
    adminToken = await login(call, ADMIN);
  });
  after(async () => {
    await cp?.stop();
  });

  const stream = (headers: Record<string, string> = {}, query = ''): Promise<Response> => fetch(`${cp.url}/api/monitoring/stream${query}`, { headers });

  test('a token in the URL never authenticates: ?token= alone is 401, and beside a Bearer header it is refused (400)', async () => {
    const alone = await stream({}, `?token=${adminToken}`);
    assert.equal(alone.status, 401);
    await alone.body?.cancel();
    const accessToken = await stream({}, `?access_token=${adminToken}`);
    assert.equal(accessToken.status, 401);
    await accessToken.body?.cancel();
    const beside = await stream({ authorization: `Bearer ${adminToken}` }, `?token=${adminToken}`);
    assert.equal(beside.status, 400);
    assert.match(await beside.text(), /token/);
  });

  test("the admin UI's session cookie opens the stream (a GET: no CSRF token needed); logout with the cookie ends it", async () => {
    const loggedIn = await call('POST', '/api/auth/login', { body: { ...ADMIN, session: 'cookie' } });
    assert.equal(loggedIn.status, 200, loggedIn.text);
    const cookies = loggedIn.headers['set-cookie'] ?? [];
    const value = (name: string): string => cookies.find((c) => c.startsWith(`${name}=`))?.split(';')[0]?.slice(name.length + 1) ?? '';
    const cookie = `gateway_session=${value('gateway_session')}; gateway_csrf=${value('gateway_csrf')}`;

    const res = await stream({ cookie });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reading = untilClosed(res);
    const out = await call('POST', '/api/auth/logout', { headers: { cookie, 'x-csrf-token': value('gateway_csrf') } });
    assert.equal(out.status, 200, out.text);
    const events = await reading;
    assert.ok(events.some((e) => e.event === 'second'), 'frames before the logout');
    assert.equal(endReason(events), 'token_revoked');
    assert.equal((await stream({ cookie })).status, 401, 'the revoked cookie opens nothing');
  });

  test('the stream ends with token_expired and closes when its token expires', async () => {
    const shortLived = managementToken(JWT_SECRET, 'admin', { expiresInSeconds: 3 });
    const res = await stream({ authorization: `Bearer ${shortLived}` });
    assert.equal(res.status, 200);
    const events = await untilClosed(res);
    assert.ok(events.filter((e) => e.event === 'second').length >= 1, 'frames until the expiry');
    assert.equal(endReason(events), 'token_expired');
  });

  test('the stream ends with token_revoked when its user is deleted', async () => {
    const created = await call('POST', '/api/users', { token: adminToken, body: { email: 'watcher@example.com', password: 'watching the cluster 24/7', role: 'admin' } });
    assert.equal(created.status, 201, created.text);
    const watcherToken = await login(call, { email: 'watcher@example.com', password: 'watching the cluster 24/7' });
    const res = await stream({ authorization: `Bearer ${watcherToken}` });
    assert.equal(res.status, 200);
    const reading = untilClosed(res);
    const deleted = await call('DELETE', `/api/users/${created.json<{ data: { id: string } }>().data.id}`, { token: adminToken });
    assert.equal(deleted.status, 204, deleted.text);
    assert.equal(endReason(await reading), 'token_revoked');
  });
});

describe('monitoring stream: one open stream is one request of the admin rate-limit tier', () => {
  const ADMIN_MAX = 4;
  // Long enough that the calls below fit in one window on a busy machine.
  const WINDOW_SECONDS = 5;
  let cp: ControlPlaneProcess;
  let call: Call;

  before(async () => {
    cp = await startControlPlaneProcess({
      env: { ...ADMIN_ENV, API_RATE_LIMIT_ADMIN_MAX: String(ADMIN_MAX), API_RATE_LIMIT_ADMIN_WINDOW_SECONDS: String(WINDOW_SECONDS) },
    });
    call = caller(cp);
  });
  after(async () => {
    await cp?.stop();
  });

  test('a stream open for longer than the tier window leaves the whole budget of the next window to other calls', async () => {
    // Minted rather than logged in: a login is in the general and credentials tiers only, but
    // nothing but the stream and the calls below may touch the admin tier here.
    const token = managementToken(JWT_SECRET, 'admin');
    const res = await fetch(`${cp.url}/api/monitoring/stream`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-ratelimit-remaining'), String(ADMIN_MAX - 1), 'opening the stream is one admin request');
    let checked = false;
    const frames: ServerSentEvent[] = [];
    let framesSeen: () => void = () => undefined;
    const enoughFrames = new Promise<void>((resolve) => (framesSeen = resolve));
    // Counted in frames, not wall time: 2 · window + 1 frames a second apart outlast two tier windows.
    const reading = readServerSentEvents(res, (events) => {
      frames.splice(0, frames.length, ...events);
      if (events.length >= 2 * WINDOW_SECONDS + 1) framesSeen();
      return checked;
    });
    await enoughFrames;

    const remaining: Array<string | undefined> = [];
    for (let i = 0; i < ADMIN_MAX; i += 1) {
      const answer = await call('GET', '/api/monitoring/data-planes', { token });
      assert.equal(answer.status, 200, `admin call ${i + 1} of ${ADMIN_MAX} while the stream is open: ${answer.text}`);
      remaining.push(answer.headers['x-ratelimit-remaining'] as string | undefined);
    }
    assert.deepEqual(remaining, Array.from({ length: ADMIN_MAX }, (_, i) => String(ADMIN_MAX - 1 - i)), 'the open stream took nothing from this window');
    assert.equal((await call('GET', '/api/monitoring/data-planes', { token })).status, 429, 'the tier is enforced');
    checked = true;
    await reading;
    assert.ok(frames.every((e) => e.event === 'second'), 'the stream stayed open throughout');
  });
});
