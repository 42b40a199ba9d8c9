import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FieldError } from './route.types';
import type { ProxyConfig } from './proxy-config.types';
import { validateProxyConfig } from './validate-proxy-config';

function ok(doc: unknown): ProxyConfig {
  const result = validateProxyConfig(doc);
  if (!result.ok) assert.fail(JSON.stringify(result.errors));
  return result.value;
}

function errors(doc: unknown): FieldError[] {
  const result = validateProxyConfig(doc);
  if (result.ok) assert.fail(`expected errors, got ${JSON.stringify(result.value)}`);
  return result.errors;
}

const minimal = { version: '1.0.0' };

/** The repository's example proxy.yml, as the YAML parser hands it over. */
const example = {
  version: '1.0.0',
  proxy: { host: '127.0.0.1', port: 8080, maxBodySize: '10mb' },
  upstreams: [{ name: 'backend', url: 'http://127.0.0.1:9000' }],
  routes: [
    { path: '/api/*', upstream: 'backend', timeout: { connect: 2000, request: 10000 } },
    { path: '/status', upstream: 'http://127.0.0.1:9000/health', methods: ['GET'] },
  ],
};

describe('validateProxyConfig', () => {
  it('reads the example proxy.yml', () => {
    const config = ok(example);
    assert.equal(config.version, '1.0.0');
    assert.deepEqual(config.proxy, {
      host: '127.0.0.1',
      port: 8080,
      maxBodySize: 10 * 1024 * 1024,
      maxHeaderSize: 16384,
      headersTimeout: 10000,
      requestTimeout: 30000,
      keepAliveTimeout: 5000,
      trustedProxies: [],
      accessLog: { enabled: false },
      tracing: {
        enabled: false,
        samplingRatio: 1,
        otlp: { enabled: false, serviceName: 'api-gateway', timeout: 10000, maxQueueSize: 2048, maxExportBatchSize: 512, scheduledDelay: 5000 },
      },
    });
    assert.deepEqual(config.upstreams, [
      { name: 'backend', targets: [{ url: 'http://127.0.0.1:9000', weight: 100 }], balancing: { algorithm: 'round-robin' }, dnsRefreshInterval: 30000, source: 'file' },
    ]);
    assert.deepEqual(
      config.routes.map((r) => [r.id, r.path, r.upstream, r.upstreamName, r.source, r.timeout]),
      [
        ['file-api-star', '/api/*', 'http://127.0.0.1:9000', 'backend', 'file', { connect: 2000, request: 10000 }],
        ['file-status', '/status', 'http://127.0.0.1:9000/health', undefined, 'file', { request: 5000 }],
      ],
    );
    assert.equal(config.authentication, undefined);
  });

  it('gives file routes the same ids on every load', () => {
    assert.deepEqual(ok(example).routes.map((r) => r.id), ok(structuredClone(example)).routes.map((r) => r.id));
    assert.equal(ok({ ...minimal, routes: [{ id: 'mine', path: '/x', upstream: 'http://h' }] }).routes[0]!.id, 'mine');
  });

  it('fills every default for a minimal file', () => {
    const config = ok(minimal);
    assert.deepEqual(config.proxy, {
      host: '0.0.0.0',
      port: 8080,
      maxBodySize: 10485760,
      maxHeaderSize: 16384,
      headersTimeout: 10000,
      requestTimeout: 30000,
      keepAliveTimeout: 5000,
      trustedProxies: [],
      accessLog: { enabled: false },
      tracing: {
        enabled: false,
        samplingRatio: 1,
        otlp: { enabled: false, serviceName: 'api-gateway', timeout: 10000, maxQueueSize: 2048, maxExportBatchSize: 512, scheduledDelay: 5000 },
      },
    });
    assert.deepEqual(config.upstreams, []);
    assert.deepEqual(config.routes, []);
  });

  it('completes upstream breakers and health checks', () => {
    const config = ok({ ...minimal, upstreams: [{ name: 'b', url: 'https://b.example', circuitBreaker: { enabled: true, failureThreshold: 10 }, healthCheck: { interval: 10000 } }] });
    assert.deepEqual(config.upstreams[0]!.circuitBreaker, { enabled: true, failureThreshold: 10, successThreshold: 2, timeout: 60000, halfOpenRequests: 3, errorStatuses: [500, 502, 503, 504] });
    assert.deepEqual(config.upstreams[0]!.healthCheck, { enabled: true, interval: 10000, timeout: 5000, unhealthyThreshold: 3, healthyThreshold: 2, expectedStatus: 200 });
  });

  it('refuses a document that is not a mapping, with one error on the root', () => {
    for (const doc of [null, 'text', 42, []]) {
      assert.deepEqual(errors(doc), [{ field: '(root)', message: 'configuration must be an object (a YAML mapping)', code: 'VALIDATION_ERROR' }]);
    }
  });

  it('requires a supported semantic version', () => {
    assert.deepEqual(errors({}), [{ field: 'version', message: 'version is required', code: 'VALIDATION_ERROR' }]);
    assert.equal(errors({ version: '1.0' })[0]!.message, 'version must be a semantic version such as 1.0.0');
    assert.equal(errors({ version: 1 })[0]!.message, 'version must be a string');
    assert.equal(errors({ version: '2.0.0' })[0]!.message, 'version 2.0.0 is not supported: this gateway reads configuration schema 1.x');
    assert.equal(ok({ version: '1.4.2-beta.1' }).version, '1.4.2-beta.1');
  });

  it('checks the proxy block', () => {
    assert.deepEqual(
      errors({ ...minimal, proxy: { host: 'http://x', port: 70000, maxBodySize: '10 parsecs', maxHeaderSize: 10, headersTimeout: 0, trustedProxies: ['10.0.0.0/8', 'nope', '10.0.0.1/33', '::1', 'fe80::/10'], colour: 1 } }).map((e) => [e.field, e.message]),
      [
        ['proxy.host', 'proxy.host must be a host name or IP address'],
        ['proxy.port', 'proxy.port must be between 0 and 65535'],
        ['proxy.maxBodySize', "proxy.maxBodySize must be a byte size such as 1048576, '512kb' or '10mb'"],
        ['proxy.maxHeaderSize', 'proxy.maxHeaderSize must be between 1024 and 1048576'],
        ['proxy.headersTimeout', 'proxy.headersTimeout must be between 1 and 3600000'],
        ['proxy.trustedProxies[1]', 'proxy.trustedProxies[1] must be an IP address or CIDR range'],
        ['proxy.trustedProxies[2]', 'proxy.trustedProxies[2] must be an IP address or CIDR range'],
        ['proxy.colour', 'Unknown field'],
      ],
    );
    assert.deepEqual(ok({ ...minimal, proxy: { port: 0, maxBodySize: 1024, maxHeaderSize: '32kb' } }).proxy.maxHeaderSize, 32768);
  });

  it('fills proxy.tls defaults and checks its certificates, names, version and port', () => {
    const tls = ok({ ...minimal, proxy: { tls: { certificates: [{ certFile: 'a.crt', keyFile: 'a.key', serverNames: ['API.Example.com', '*.example.com'] }] } } }).proxy.tls;
    assert.deepEqual(tls, {
      enabled: true,
      port: 8443,
      certificates: [{ certFile: 'a.crt', keyFile: 'a.key', serverNames: ['api.example.com', '*.example.com'] }],
      minVersion: 'TLSv1.2',
      http2: true,
      redirectHttp: false,
    });
    assert.equal(ok(minimal).proxy.tls, undefined, 'no HTTPS listener unless asked for');
    assert.deepEqual(
      errors({
        ...minimal,
        proxy: { tls: { certificates: [{ certFile: 'a.crt', serverNames: ['*.*.example.com', 'a b'] }, { keyFile: '' }], minVersion: 'TLSv1.1', http2: 'yes' } },
      }).map((e) => [e.field, e.message]),
      [
        ['proxy.tls.certificates[0].keyFile', 'proxy.tls.certificates[0].keyFile is required'],
        ['proxy.tls.certificates[0].serverNames[0]', "proxy.tls.certificates[0].serverNames[0] must be a DNS name, optionally starting with '*.'"],
        ['proxy.tls.certificates[0].serverNames[1]', "proxy.tls.certificates[0].serverNames[1] must be a DNS name, optionally starting with '*.'"],
        ['proxy.tls.certificates[1].certFile', 'proxy.tls.certificates[1].certFile is required'],
        ['proxy.tls.certificates[1].keyFile', 'proxy.tls.certificates[1].keyFile must not be empty'],
        ['proxy.tls.minVersion', 'proxy.tls.minVersion must be one of: TLSv1.2, TLSv1.3'],
        ['proxy.tls.http2', 'proxy.tls.http2 must be a boolean'],
      ],
    );
    assert.deepEqual(errors({ ...minimal, proxy: { tls: { certificates: [] } } }).map((e) => e.field), ['proxy.tls.certificates']);
    assert.deepEqual(errors({ ...minimal, proxy: { tls: {} } }).map((e) => e.field), ['proxy.tls.certificates']);
    assert.deepEqual(errors({ ...minimal, proxy: { port: 8443, tls: { certificates: [{ certFile: 'a', keyFile: 'b' }] } } }), [
      { field: 'proxy.tls.port', message: 'proxy.tls.port must differ from proxy.port (HTTP and HTTPS listen side by side)', code: 'VALIDATION_ERROR' },
    ]);
  });

  it('refuses headersTimeout above requestTimeout (node would not start)', () => {
    assert.deepEqual(errors({ ...minimal, proxy: { headersTimeout: 60000, requestTimeout: 30000 } }), [
      { field: 'proxy.headersTimeout', message: 'proxy.headersTimeout must not exceed proxy.requestTimeout', code: 'VALIDATION_ERROR' },
    ]);
  });

  it('checks upstreams: names, URLs, duplicates, breaker bounds, unknown keys', () => {
    assert.deepEqual(
      errors({
        ...minimal,
        upstreams: [
          { name: 'a', url: 'http://a' },
          { name: 'a', url: 'http://a2' },
          { name: 'bad name', url: 'ftp://c', circuitBreaker: { failureThreshold: 0 }, weight: 3 },
          { url: 'http://d', healthCheck: { interval: 1000, timeout: 5000 } },
        ],
      }).map((e) => [e.field, e.message, e.code]),
      [
        ['upstreams[2].name', "name must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", 'VALIDATION_ERROR'],
        ['upstreams[2].url', 'Invalid URL', 'INVALID_URL'],
        ['upstreams[2].circuitBreaker.failureThreshold', 'circuitBreaker.failureThreshold must be at least 1', 'VALIDATION_ERROR'],
        ['upstreams[2].weight', 'Unknown field', 'VALIDATION_ERROR'],
        ['upstreams[3].name', 'name is required', 'VALIDATION_ERROR'],
        ['upstreams[3].healthCheck.timeout', 'healthCheck.timeout must not exceed healthCheck.interval', 'VALIDATION_ERROR'],
        ['upstreams[1].name', "Duplicate upstream name 'a'", 'VALIDATION_ERROR'],
      ],
    );
  });

  it('checks upstream targets, balancing and outlier detection on their fields; a route may name a several-target upstream', () => {
    assert.deepEqual(
      errors({
        ...minimal,
        upstreams: [
          { name: 'ok', targets: [{ url: 'http://a:1/v1' }, { url: 'http://b:1/v1', weight: 300 }], balancing: { algorithm: 'least-connections' } },
          { name: 'bad', targets: [{ url: 'http://a:1', weight: 5000 }], balancing: { algorithm: 'consistent-hash', hashOn: 'cookie' }, outlierDetection: { consecutiveFailures: 0 } },
        ],
        routes: [{ path: '/ok/*', upstream: 'ok' }],
      }).map((e) => [e.field, e.message]),
      [
        ['upstreams[1].targets[0].weight', 'targets[0].weight must be between 1 and 1000'],
        ['upstreams[1].outlierDetection.consecutiveFailures', 'outlierDetection.consecutiveFailures must be between 1 and 1000'],
        ['upstreams[1].balancing.hashKey', 'balancing.hashKey is required when balancing.hashOn is cookie'],
      ],
    );
    const config = ok({ ...minimal, upstreams: [{ name: 'ok', targets: [{ url: 'http://a:1/v1' }, { url: 'http://b:1/v1' }] }], routes: [{ path: '/ok/*', upstream: 'ok' }] });
    assert.equal(config.routes[0]!.upstream, 'http://a:1/v1', 'the route shows the first target');
    assert.equal(config.routes[0]!.upstreamName, 'ok');
  });

  it('reports route errors under routes[i], all of them', () => {
    assert.deepEqual(
      errors({
        ...minimal,
        upstreams: [{ name: 'backend', url: 'http://b' }],
        routes: [{ path: '/ok', upstream: 'backend' }, { path: 'bad', upstream: 'backend', timeout: { request: 1 } }, { path: '/x', upstream: 'missing' }, 'route?'],
      }).map((e) => [e.field, e.message, e.code]),
      [
        ['routes[1].path', 'Invalid path format', 'INVALID_PATH'],
        ['routes[1].timeout.request', 'timeout.request must be between 100 and 60000', 'VALIDATION_ERROR'],
        ['routes[2].upstream', "Unknown upstream 'missing' (not a name under upstreams nor a URL)", 'UNKNOWN_UPSTREAM'],
        ['routes[3]', 'route must be an object', 'VALIDATION_ERROR'],
      ],
    );
  });

  it('does not call a route unknown when the upstream it names has errors of its own', () => {
    assert.deepEqual(
      errors({ ...minimal, upstreams: [{ name: 'b', url: 'not-a-url' }], routes: [{ path: '/x', upstream: 'b' }] }).map((e) => e.field),
      ['upstreams[0].url'],
    );
  });

  it('refuses two enabled routes on one path (decision 9), but not a disabled one', () => {
    assert.deepEqual(errors({ ...minimal, routes: [{ path: '/a', upstream: 'http://h' }, { path: '/b', upstream: 'http://h' }, { path: '/a', upstream: 'http://other', methods: ['POST'] }] }), [
      { field: 'routes[2].path', message: 'Path already exists', code: 'PATH_EXISTS' },
    ]);
    const config = ok({ ...minimal, routes: [{ path: '/a', upstream: 'http://h' }, { path: '/a', upstream: 'http://h2', enabled: false }] });
    assert.deepEqual(config.routes.map((r) => r.id), ['file-a', 'file-a-2']);
  });

  it('refuses duplicate declared route ids', () => {
    assert.deepEqual(errors({ ...minimal, routes: [{ id: 'x', path: '/a', upstream: 'http://h' }, { id: 'x', path: '/b', upstream: 'http://h' }] }), [
      { field: 'routes[1].id', message: "Duplicate route id 'x' (also routes[0])", code: 'VALIDATION_ERROR' },
    ]);
  });

  it('refuses unknown top-level keys and wrong shapes', () => {
    assert.deepEqual(errors({ ...minimal, plugins: [], routes: {}, upstreams: 'b' }).map((e) => [e.field, e.message]), [
      ['upstreams', 'upstreams must be an array'],
      ['plugins', 'Unknown field'],
      ['routes', 'routes must be an array'],
    ]);
  });

  describe('authentication', () => {
    it('accepts the provider block named by provider', () => {
      const config = ok({
        ...minimal,
        authentication: {
          enabled: true,
          provider: 'acme',
          acme: { apiUrl: 'https://sessions.acme.test', tenantId: 't1', sessionValidation: { enabled: true }, sso: { enabled: true, idpId: 'okta', returnUrl: 'https://gw.test/admin' }, fallbackAuth: { enabled: true, methods: ['apiKey'] } },
        },
      });
      assert.deepEqual(config.authentication, {
        enabled: true,
        provider: 'acme',
        apiUrl: 'https://sessions.acme.test',
        tenantId: 't1',
        sessionValidation: { enabled: true, cacheTTL: 300 },
        sso: { enabled: true, idpId: 'okta', returnUrl: 'https://gw.test/admin', idpCertificates: [], clockSkewSeconds: 60, allowedReturnUrls: [], adminGroups: [] },
        fallbackAuth: { enabled: true, methods: ['apiKey'] },
      });
    });

    it('reads the SAML fields of sso and names each bad one (docs/sso.md)', () => {
      const sso = {
        enabled: true,
        idpEntityId: 'https://idp.test/metadata',
        idpSsoUrl: 'https://idp.test/sso',
        idpCertificates: ['-----BEGIN CERTIFICATE-----'],
        acsUrl: 'https://gw.test/api/auth/saml/callback',
        clockSkewSeconds: 120,
        allowedReturnUrls: ['https://ui.test/'],
        groupsAttribute: 'groups',
        adminGroups: ['gateway-admins'],
      };
      assert.deepEqual(ok({ ...minimal, authentication: { sso } }).authentication?.sso, sso);
      assert.deepEqual(
        errors({ ...minimal, authentication: { sso: { ...sso, idpSsoUrl: 'nope', clockSkewSeconds: 301, allowedReturnUrls: ['ftp://x'], adminGroups: [''] } } }).map((e) => e.field),
        ['authentication.sso.idpSsoUrl', 'authentication.sso.clockSkewSeconds', 'authentication.sso.allowedReturnUrls[0]', 'authentication.sso.adminGroups[0]'],
      );
    });

    it('accepts the same fields inline and fills sessionValidation', () => {
      assert.deepEqual(ok({ ...minimal, authentication: { provider: 'acme', apiUrl: 'https://s.test' } }).authentication, {
        enabled: true,
        provider: 'acme',
        apiUrl: 'https://s.test',
        sessionValidation: { enabled: true, cacheTTL: 300 },
      });
      assert.deepEqual(ok({ ...minimal, authentication: { enabled: false } }).authentication, { enabled: false, sessionValidation: { enabled: true, cacheTTL: 300 } });
    });

    it('reports problems inside the block on the block path', () => {
      assert.deepEqual(
        errors({
          ...minimal,
          authentication: { provider: 'acme', tenantId: 'a', acme: { apiUrl: 'nope', tenantId: 'b', sessionValidation: { cacheTTL: -1 }, colour: 1 }, fallbackAuth: { methods: ['magic'] } },
        }).map((e) => [e.field, e.message]),
        [
          ['authentication.acme.tenantId', 'authentication.acme.tenantId is also given as authentication.tenantId; give it once'],
          ['authentication.acme.colour', 'Unknown field'],
          ['authentication.acme.apiUrl', 'Invalid URL'],
          ['authentication.acme.sessionValidation.cacheTTL', 'authentication.acme.sessionValidation.cacheTTL must be between 0 and 86400'],
          ['authentication.fallbackAuth.methods[0]', 'authentication.fallbackAuth.methods[0] must be one of: basic, apiKey'],
        ],
      );
    });

    it('requires apiUrl with a provider and methods with fallbackAuth', () => {
      assert.deepEqual(errors({ ...minimal, authentication: { provider: 'acme', fallbackAuth: { enabled: true } } }), [
        { field: 'authentication.apiUrl', message: 'authentication.apiUrl is required when authentication.provider is set', code: 'VALIDATION_ERROR' },
        { field: 'authentication.fallbackAuth', message: 'authentication.fallbackAuth.methods must list basic and/or apiKey when fallbackAuth is enabled', code: 'VALIDATION_ERROR' },
      ]);
    });

    it('refuses unknown keys that name no provider', () => {
      assert.deepEqual(errors({ ...minimal, authentication: { provider: 'acme', apiUrl: 'https://s.test', other: {} } }).map((e) => e.field), ['authentication.other']);
    });
  });
});
