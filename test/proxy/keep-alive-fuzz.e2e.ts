import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import fc from 'fast-check';
import { startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { assertGatewayServes, runningGateway } from './fuzz/gateway-liveness';
import { fuzzSettings, fuzzTestTimeoutMs, runFuzz } from './fuzz/fuzz-run';
import { sequenceArbitrary, type RequestShape } from './fuzz/hostile-requests';
import { playSequence, responseStatuses } from './fuzz/raw-connection';

/*
 * Issue 11: no byte sequence from a client may end the data plane. Each case is a generated
 * sequence of valid and hostile requests on ONE keep-alive connection; after it the process must
 * be alive and serve a fresh request. FUZZ_SEED / FUZZ_RUNS / FUZZ_PATH replay or lengthen the run
 * (`npm run fuzz`); the seed is printed on failure.
 */

const MAX_HEADER_SIZE = 4096;
const MAX_BODY_SIZE = 1024;
const REQUEST_TIMEOUT_MS = 1500;
/** alice's password "correct horse" in the stored form (small scrypt N keeps refusals cheap here). */
const BASIC_HASH = ((): string => {
  const salt = randomBytes(16);
  return `scrypt$1024$8$1$${salt.toString('base64')}$${scryptSync('correct horse', salt, 32, { N: 1024, r: 8, p: 1 }).toString('base64')}`;
})();

const settings = fuzzSettings(100);

describe('keep-alive connection fuzzing (client side)', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    // Answers without any status-line-looking text, so every status in the stream is the gateway's.
    upstream = await startUpstream({ handler: (_req, res) => res.end('ok') });
    gateway = await startGatewayProcess({
      env: { FUZZ_JWT_SECRET: randomBytes(32).toString('hex'), API_KEY_SECRET: randomBytes(32).toString('hex') },
      config: `
version: "1.0.0"
proxy:
  host: 127.0.0.1
  port: 8080
  maxBodySize: ${MAX_BODY_SIZE}
  maxHeaderSize: ${MAX_HEADER_SIZE}
  requestTimeout: ${REQUEST_TIMEOUT_MS}
  headersTimeout: 1000
  keepAliveTimeout: 2000
upstreams:
  - { name: main, url: "${upstream.origin}" }
routes:
  - { id: plain, path: /echo/*, upstream: main }
  - { id: shaped, path: /shaped/*, upstream: main, headers: { response: { set: { X-Served: "gw \${method}" } } } }
  - { id: cached, path: /cached/*, upstream: main, cache: { enabled: true, ttl: 1000 } }
  - { id: transformed, path: /transformed/*, upstream: main, transform: { response: { body: { exclude: [secret] } } } }
  - { id: retried, path: /retried/*, upstream: main, retry: { enabled: true, attempts: 2, backoff: exponential, initialDelay: 10, methods: [GET, POST, PUT] } }
  - { id: limited, path: /limited/*, upstream: main, rateLimit: { enabled: true, max: 5, windowMs: 1000 } }
  - { id: jwt, path: /jwt/*, upstream: main, auth: { enabled: true, type: jwt, jwt: { secretEnv: FUZZ_JWT_SECRET, algorithms: [HS256] } } }
  - { id: basic, path: /basic/*, upstream: main, auth: { enabled: true, type: basic, basic: { users: { alice: "${BASIC_HASH}" } } } }
  - { id: apikey, path: /key/*, upstream: main, auth: { enabled: true, type: apiKey } }
  - { id: anonymous, path: /anon/*, upstream: main, auth: { enabled: true, type: jwt, allowAnonymous: true, jwt: { secretEnv: FUZZ_JWT_SECRET } } }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  test('no sequence of requests on one connection ends the process; a fresh request still gets 200', { timeout: fuzzTestTimeoutMs(settings, 1000) }, async (t) => {
    const shape: RequestShape = {
      servedPaths: ['/echo/a', '/shaped/b', '/cached/c', '/transformed/d', '/retried/e', '/limited/f', '/jwt/g', '/basic/h', '/key/i', '/anon/j'],
      maxHeaderSize: MAX_HEADER_SIZE,
      maxBodySize: MAX_BODY_SIZE,
    };
    const property = fc.asyncProperty(sequenceArbitrary(shape), async (sequence) => {
      gateway = await runningGateway(gateway);
      const seenBefore = upstream.requests.length;
      const played = await playSequence(gateway.port, sequence, { closeWithinMs: REQUEST_TIMEOUT_MS + 3000 });
      assert.equal(played.hung, false, 'the gateway kept a half-closed connection open past requestTimeout');
      assert.ok(!responseStatuses(played.received).includes(500), `a 500 in:\n${played.received.slice(0, 2000)}`);
      await assertGatewayServes(gateway, '/echo/probe');
      // Every request the upstream parsed was sent by the gateway: bytes of a client's body read
      // as a request of their own (smuggling) would lack the headers the gateway sets.
      const smuggled = upstream.requests.slice(seenBefore).find((r) => r.headers['x-correlation-id'] === undefined || r.headers['x-forwarded-proto'] === undefined);
      assert.equal(smuggled, undefined, `the upstream received a request the gateway did not send: ${smuggled?.method} ${smuggled?.url}`);
    });
    t.diagnostic(`seed ${settings.seed}, ${settings.runs} runs`);
    await runFuzz(property, settings, 'keep-alive-fuzz');
  });
});
