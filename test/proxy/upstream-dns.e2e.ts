import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, startFakeDnsServer, startGatewayProcess, startUpstream, type FakeDnsServer, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { until } from './balancing-fixtures';

const NAME = 'backend.lb.test';

/** `until` wants a value; a true check gives one. */
const holds = async (check: () => Promise<boolean>): Promise<true | undefined> => ((await check()) ? true : undefined);

/**
 * A target named by a host name is followed through DNS: the fake server on loopback plays a
 * Kubernetes headless service whose pod addresses change. Two upstreams listen on one port at
 * 127.0.0.1 and 127.0.0.2, so only the resolved address tells them apart.
 */
describe('upstream host names re-resolved on their DNS TTL (issue 18)', () => {
  let dns: FakeDnsServer;
  let first: LoopbackUpstream;
  let second: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    dns = await startFakeDnsServer();
    first = await startUpstream({ handler: (_req, res) => res.end('first') });
    second = await startUpstream({ host: '127.0.0.2', port: first.port, handler: (_req, res) => res.end('second') });
    dns.set(NAME, { a: ['127.0.0.1'], ttl: 1 });
    gateway = await startGatewayProcess({
      env: { GATEWAY_DNS_SERVERS: dns.address },
      config: `
version: "1.0.0"
upstreams:
  - { name: headless, url: "http://${NAME}:${first.port}", dnsRefreshInterval: 30000 }
routes:
  - { id: svc, path: /svc/*, upstream: headless, retry: { enabled: false, attempts: 0, backoff: exponential } }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await Promise.all([first?.close(), second?.close(), dns?.close()]);
  });

  const batch = async (count: number): Promise<string[]> => {
    const out: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const res = await request(`${gateway.url}/svc/x`);
      out.push(res.status === 200 ? res.text : String(res.status));
    }
    return out;
  };

  test('requests go to the resolved address with the target host as Host', async () => {
    await until('the first address', () => holds(async () => (await batch(1))[0] === 'first'));
    assert.equal(first.requests.at(-1)?.headers.host, `${NAME}:${first.port}`);
    assert.ok(dns.queries(NAME) > 0, 'the gateway asked the configured DNS server');
  });

  test('an address change is followed within the TTL (1 s), not the 30 s refresh interval', async () => {
    dns.set(NAME, { a: ['127.0.0.2'], ttl: 1 });
    await until('the new address', () => holds(async () => (await batch(1))[0] === 'second'), 10_000);
    assert.deepEqual(new Set(await batch(10)), new Set(['second']), 'the old address gets no more traffic');
  });

  test('a scaled-up service: every address gets traffic and shows in /health/deep', async () => {
    dns.set(NAME, { a: ['127.0.0.1', '127.0.0.2'], ttl: 1 });
    await until('both addresses in rotation', () => holds(async () => new Set(await batch(4)).size === 2), 10_000);
    const deep = (await request(`${gateway.url}/health/deep`)).json<{ upstreams: Record<string, { endpoints: Array<{ target: string; address?: string; state: string }> }> }>();
    assert.deepEqual(
      deep.upstreams['headless']?.endpoints.map((e) => [e.target, e.address, e.state]),
      [
        [`${NAME}:${first.port}`, '127.0.0.1', 'available'],
        [`${NAME}:${first.port}`, '127.0.0.2', 'available'],
      ],
    );
  });

  test('a DNS failure keeps the last addresses instead of emptying the upstream', async () => {
    const queries = dns.queries(NAME);
    dns.set(NAME, undefined);
    await until('a refresh that got NXDOMAIN', () => holds(async () => dns.queries(NAME) > queries + 2), 10_000);
    assert.deepEqual(new Set(await batch(6)), new Set(['first', 'second']));
  });
});
