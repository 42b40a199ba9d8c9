import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedPort, startUpstream, type ClientResponse, type LoopbackUpstream } from '@gateway/testing';
import { ADMIN, ADMIN_ENV, caller, JWT_SECRET, login, managementToken, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { mismatches, operationsOf, resolve, type OpenApiDocument, type Operation, type Schema } from './openapi-document';

const CLUSTER_TOKEN = 'openapi-suite-cluster-token-0123456789';
/** Stands for every `{id}`: no such route, user or key, so no probe changes anything. */
const MISSING_ID = 'openapi-probe-missing';
/** Parameter names the issue lists, and a few common ones an endpoint might grow without declaring. */
const CANDIDATE_PARAMETERS = ['limit', 'offset', 'search', 'enabled', 'tag', 'deleted', 'permanent', 'top', 'level', 'since', 'status', 'page', 'sort', 'q'];
/** A value each candidate accepts wherever it is declared, so a 400 on it can only mean "unknown". */
const SAMPLE_VALUES: Record<string, string> = { enabled: 'true', deleted: 'false', permanent: 'false', level: 'info', since: '2020-01-01T00:00:00Z', status: 'active', search: 'x', tag: 'x', q: 'x', sort: 'x', window: '5m', from: '2020-01-01T00:00:00Z', to: '2030-01-01T00:00:00Z' };

interface ErrorBody {
  details?: { fields?: Array<{ field: string }> };
}

describe('OpenAPI document of the management API', () => {
  let cp: ControlPlaneProcess;
  let call: Call;
  let token: string;
  let doc: OpenApiDocument;

  before(async () => {
    // With a cluster token the internal snapshot endpoint is live: it must still stay out of the document.
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, CLUSTER_TOKEN } });
    call = caller(cp);
    token = await login(call, ADMIN);
    doc = (await call('GET', '/api/docs-json')).json<OpenApiDocument>();
  });
  after(async () => {
    await cp?.stop();
  });

  const operation = (method: string, path: string): Operation => {
    const found = doc.paths[path]?.[method.toLowerCase()];
    assert.ok(found, `${method} ${path} is not in the document`);
    return found;
  };
  const concrete = (path: string): string => path.replace(/\{[^}]+\}/g, MISSING_ID);

  /** The answer's status is documented for the operation, and its body matches that status's schema. */
  const assertDocumented = (method: string, path: string, res: ClientResponse): void => {
    const response = operation(method, path).responses[String(res.status)];
    assert.ok(response, `${method} ${path} answered ${res.status}, which it does not document (${res.text.slice(0, 200)})`);
    const schema = response.content?.['application/json']?.schema;
    if (schema !== undefined) assert.deepEqual(mismatches(doc, res.json(), schema), [], `${method} ${path} ${res.status}: ${res.text.slice(0, 300)}`);
  };

  test('GET /api/docs-json is public and lists every management path and operation', async () => {
    const res = await call('GET', '/api/docs-json');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.match(doc.openapi, /^3\./);
    assert.equal(doc.info.title, 'Gateway management API');
    const expected: Record<string, string[]> = {
      '/api/auth/login': ['post'],
      '/api/auth/logout': ['post'],
      '/api/auth/register': ['post'],
      '/api/auth/session': ['get'],
      '/api/users': ['get', 'post'],
      '/api/users/{id}': ['delete'],
      '/api/logs': ['get'],
      '/api/audit-log': ['get'],
      '/api/routes': ['get', 'post'],
      '/api/routes/{id}': ['get', 'put', 'patch', 'delete'],
      '/api/routes/{id}/toggle': ['post'],
      '/api/routes/{id}/clone': ['post'],
      '/api/routes/{id}/restore': ['post'],
      '/api/routes/{id}/test': ['post'],
      '/api/routes/{id}/circuit-breaker': ['get'],
      '/api/routes/{id}/circuit-breaker/trip': ['post'],
      '/api/routes/{id}/circuit-breaker/reset': ['post'],
      '/api/routes/{id}/rate-limit': ['get'],
      '/api/routes/{id}/health': ['get'],
      '/api/routes/{id}/cache': ['delete'],
      '/api/api-keys': ['get', 'post'],
      '/api/api-keys/{id}': ['get', 'delete'],
      '/api/upstreams': ['get', 'post'],
      '/api/upstreams/{name}': ['get', 'put', 'patch', 'delete'],
    };
    for (const [path, methods] of Object.entries(expected)) for (const method of methods) operation(method, path);
    assert.ok(!Object.keys(doc.paths).some((p) => p === '/api' || p.includes('{path}')), 'the catch-all is not documented');
    assert.ok(doc.components.securitySchemes['bearer']);
    const sessionCookie = doc.components.securitySchemes['sessionCookie'] as Record<string, unknown> | undefined;
    assert.deepEqual([sessionCookie?.['type'], sessionCookie?.['in'], sessionCookie?.['name']], ['apiKey', 'cookie', 'gateway_session']);
    for (const name of ['CreateUserDto', 'LoginDto', 'CreateApiKeyDto', 'CreatedApiKeyDto', 'ErrorEnvelope']) assert.ok(doc.components.schemas[name], name);
  });

  test('the internal cluster endpoint is live but never in the public document', async () => {
    const snapshot = await call('GET', '/internal/cluster/snapshot', { token: CLUSTER_TOKEN });
    assert.equal(snapshot.status, 200, 'the endpoint exists in this process');
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith('/internal')), []);
    assert.doesNotMatch(JSON.stringify(doc), /cluster\/snapshot|SnapshotController/);
  });

  test('every operation declares a success response (with its body schema unless 204); errors under /api carry the error envelope', async () => {
    for (const { method, path, operation: op } of operationsOf(doc)) {
      const statuses = Object.keys(op.responses);
      // A redirect endpoint (SAML single logout) succeeds with a 3xx and no body.
      if (!statuses.some((s) => s.startsWith('2')) && statuses.some((s) => s.startsWith('3'))) continue;
      const success = statuses.filter((s) => s.startsWith('2'));
      if (success.length === 0) {
        // Only an endpoint that does not exist yet may lack one (spec 4.4: register answers 501).
        assert.deepEqual(statuses.filter((s) => s !== '429'), ['501'], `${method} ${path} declares no 2xx response`);
        const res = await call(method, path);
        assert.equal(res.status, 501, `${method} ${path} claims to be unimplemented`);
        assertDocumented(method, path, res);
        continue;
      }
      for (const status of success) {
        if (status === '204') continue;
        const content = op.responses[status]?.content ?? {};
        assert.ok(Object.values(content).some((media) => media?.schema !== undefined), `${method} ${path} ${status} has no body schema`);
      }
      if (!path.startsWith('/api/')) continue;
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        assert.deepEqual(op.responses[status]?.content?.['application/json']?.schema, { $ref: '#/components/schemas/ErrorEnvelope' }, `${method} ${path} ${status}`);
      }
    }
  });

  test('security: what the guards refuse anonymously declares the bearer token and its 401, what they refuse a user declares its 403; public operations declare none', async () => {
    let secured = 0;
    for (const { method, path, operation: op } of operationsOf(doc)) {
      const anonymous = await call(method, concrete(path));
      assertDocumented(method, path, anonymous);
      if (anonymous.status !== 401) {
        assert.ok(op.security === undefined || op.security.length === 0, `${method} ${path} is public (answered ${anonymous.status}) but declares security`);
        continue;
      }
      secured += 1;
      assert.deepEqual(op.security, [{ bearer: [] }, { sessionCookie: [] }], `${method} ${path} needs a token but declares no security`);
      // A fresh user token per call: logout revokes the one it is given.
      const asUser = await call(method, concrete(path), { token: managementToken(JWT_SECRET, 'user') });
      assertDocumented(method, path, asUser);
      const forbidden = String(op.responses['403']?.description ?? '');
      assert.equal(forbidden.includes('FORBIDDEN'), asUser.status === 403, `${method} ${path}: a user gets ${asUser.status}; 403 documented: ${forbidden}`);
      // A cookie session's state-changing call without X-CSRF-Token is refused (docs/admin-ui.md).
      assert.equal(forbidden.includes('CSRF_TOKEN_INVALID'), ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method.toUpperCase()), `${method} ${path}: 403 ${forbidden}`);
    }
    assert.ok(secured >= 25, `only ${secured} secured operations`);
    for (const path of ['/api/audit-log', '/api/routes', '/api/users', '/api/logs']) assert.deepEqual(operation('GET', path).security, [{ bearer: [] }, { sessionCookie: [] }], path);
    assert.equal(operation('POST', '/api/auth/login').security, undefined);
  });

  test('query parameters: every parameter an operation accepts is declared, and every declared one is accepted', async () => {
    const declaredAnywhere = operationsOf(doc).flatMap(({ operation: op }) => (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name));
    const candidates = [...new Set([...CANDIDATE_PARAMETERS, ...declaredAnywhere])];
    const sample = (name: string, schema: Schema | undefined): string => {
      const s = schema === undefined ? {} : (resolve(doc, schema) as Schema & { minimum?: number; default?: unknown });
      if (s.enum !== undefined) return String(s.enum[0]);
      if (s.type === 'integer' || s.type === 'number') return String(s.minimum ?? 1);
      return SAMPLE_VALUES[name] ?? (s.type === 'boolean' ? 'false' : 'x');
    };
    /** A 400 naming the parameter (decision 5: unknown parameters are refused by name). */
    const refuses = async (method: string, path: string, name: string, value: string): Promise<boolean> => {
      const res = await call(method, `${concrete(path)}?${name}=${encodeURIComponent(value)}`, { token });
      assertDocumented(method, path, res);
      return res.status === 400 && (res.json<ErrorBody>().details?.fields ?? []).some((f) => f.field === name);
    };

    let probed = 0;
    for (const { method, path, operation: op } of operationsOf(doc)) {
      if (method !== 'get' && method !== 'delete') continue; // the rest change state or read a body
      const declared = (op.parameters ?? []).filter((p) => p.in === 'query');
      for (const p of declared) {
        assert.equal(await refuses(method, path, p.name, sample(p.name, p.schema)), false, `${method} ${path} declares ${p.name} but refuses it`);
      }
      const refusesUnknown = await refuses(method, path, 'zz_undeclared', '1');
      if (declared.length > 0) assert.ok(refusesUnknown, `${method} ${path} takes parameters but ignores unknown ones`);
      if (!refusesUnknown) continue;
      probed += 1;
      for (const name of candidates.filter((c) => !declared.some((p) => p.name === c))) {
        assert.ok(await refuses(method, path, name, SAMPLE_VALUES[name] ?? '1'), `${method} ${path} accepts ?${name} but does not declare it`);
      }
    }
    assert.ok(probed >= 10, `only ${probed} operations probed`);

    const names = (method: string, path: string) => (operation(method, path).parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    assert.deepEqual(names('GET', '/api/routes').sort(), ['deleted', 'enabled', 'limit', 'offset', 'search', 'tag']);
    assert.deepEqual(names('DELETE', '/api/routes/{id}'), ['permanent']);
    assert.deepEqual(names('GET', '/api/audit-log').sort(), ['limit', 'offset']);
    assert.deepEqual(names('GET', '/api/users').sort(), ['limit', 'offset']);
    assert.deepEqual(names('GET', '/api/api-keys').sort(), ['limit', 'offset', 'status']);
    assert.deepEqual(names('GET', '/api/logs').sort(), ['level', 'limit', 'since']);
  });

  test('path parameters: every {name} of a path is a declared, required path parameter', () => {
    for (const { method, path, operation: op } of operationsOf(doc)) {
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        const parameter = (op.parameters ?? []).find((p) => p.in === 'path' && p.name === name);
        assert.ok(parameter?.required, `${method} ${path} does not declare {${name}}`);
      }
    }
  });

  test('request bodies: the operations that read one declare its schema', () => {
    const bodies: Array<[string, string]> = [
      ['POST', '/api/auth/login'],
      ['POST', '/api/users'],
      ['POST', '/api/api-keys'],
      ['POST', '/api/routes'],
      ['PUT', '/api/routes/{id}'],
      ['PATCH', '/api/routes/{id}'],
      ['POST', '/api/routes/{id}/test'],
    ];
    for (const [method, path] of bodies) assert.ok(operation(method, path).requestBody?.content['application/json']?.schema, `${method} ${path}`);
    const probe = resolve(doc, operation('POST', '/api/routes/{id}/test').requestBody!.content['application/json']!.schema);
    assert.equal(operation('POST', '/api/routes/{id}/test').requestBody?.required, false, 'every probe field is optional');
    assert.deepEqual(Object.keys(probe.properties ?? {}).sort(), ['body', 'headers', 'method', 'path']);
    assert.equal(probe.properties?.['body']?.type, undefined, 'body is any JSON value, not only a string');
  });

  test('the route body documents the access rules (ipRestriction, cors) with their fields', () => {
    const body = resolve(doc, operation('POST', '/api/routes').requestBody!.content['application/json']!.schema);
    const ip = body.properties?.['ipRestriction'];
    const cors = body.properties?.['cors'];
    assert.deepEqual(Object.keys(ip?.properties ?? {}).sort(), ['allow', 'deny', 'enabled']);
    assert.deepEqual(Object.keys(cors?.properties ?? {}).sort(), ['credentials', 'enabled', 'exposedHeaders', 'headers', 'maxAge', 'methods', 'origins']);
    assert.deepEqual(cors?.required, ['origins']);
  });

  describe('answers match the document', () => {
    let upstream: LoopbackUpstream;
    before(async () => {
      upstream = await startUpstream({ handler: (_req, res) => res.setHeader('content-type', 'application/json').end('{"ok":true}') });
    });
    after(async () => {
      await upstream?.close();
    });

    const documented = async (method: string, path: string, concretePath: string, body?: unknown, expected?: number): Promise<ClientResponse> => {
      const res = await call(method, concretePath, { token, ...(body === undefined ? {} : { body }) });
      if (expected !== undefined) assert.equal(res.status, expected, `${method} ${concretePath}: ${res.text}`);
      assertDocumented(method, path, res);
      return res;
    };

    test('routes: create, read, list, change, clone, delete, restore', async () => {
      await documented('POST', '/api/routes', '/api/routes', { id: 'doc', path: '/doc/*', upstream: upstream.origin, tags: ['docs'], methods: ['GET', 'POST'] }, 201);
      await documented('GET', '/api/routes/{id}', '/api/routes/doc', undefined, 200);
      await documented('GET', '/api/routes', '/api/routes?tag=docs', undefined, 200);
      await documented('PATCH', '/api/routes/{id}', '/api/routes/doc', { description: 'documented', retry: { attempts: 2 } }, 200);
      await documented('PUT', '/api/routes/{id}', '/api/routes/doc', { path: '/doc/*', upstream: upstream.origin, methods: ['GET', 'POST'] }, 200);
      await documented('POST', '/api/routes', '/api/routes', { path: '/doc/*', upstream: upstream.origin }, 409);
      await documented('POST', '/api/routes', '/api/routes', { path: 'nope', upstream: 'ftp://x' }, 400);
      await documented('POST', '/api/routes/{id}/toggle', '/api/routes/doc/toggle', undefined, 200);
      await documented('POST', '/api/routes/{id}/toggle', '/api/routes/doc/toggle', undefined, 200);
      await documented('POST', '/api/routes/{id}/clone', '/api/routes/doc/clone', undefined, 201);
      await documented('DELETE', '/api/routes/{id}', '/api/routes/doc-copy', undefined, 204);
      await documented('GET', '/api/routes', '/api/routes?deleted=true', undefined, 200);
      await documented('POST', '/api/routes/{id}/restore', '/api/routes/doc-copy/restore', undefined, 200);
      await documented('POST', '/api/routes/{id}/restore', '/api/routes/doc-copy/restore', undefined, 422);
      await documented('DELETE', '/api/routes/{id}', '/api/routes/doc-copy?permanent=true', undefined, 204);
    });

    test('upstreams: create, read, list, change, refused, in use, delete', async () => {
      await documented('POST', '/api/upstreams', '/api/upstreams', { name: 'doc-up', targets: [{ url: upstream.origin, weight: 5 }], balancing: { algorithm: 'consistent-hash', hashOn: 'header', hashKey: 'x-user' } }, 201);
      await documented('GET', '/api/upstreams/{name}', '/api/upstreams/doc-up', undefined, 200);
      await documented('GET', '/api/upstreams', '/api/upstreams?limit=5', undefined, 200);
      await documented('PATCH', '/api/upstreams/{name}', '/api/upstreams/doc-up', { outlierDetection: { enabled: true } }, 200);
      await documented('PUT', '/api/upstreams/{name}', '/api/upstreams/doc-up', { url: upstream.origin }, 200);
      await documented('POST', '/api/upstreams', '/api/upstreams', { name: 'doc-up', url: upstream.origin }, 409);
      await documented('POST', '/api/upstreams', '/api/upstreams', { name: 'doc-bad', targets: [{ url: 'ftp://x' }] }, 400);
      await documented('POST', '/api/routes', '/api/routes', { id: 'doc-named', path: '/doc-named/*', upstream: 'doc-up' }, 201);
      await documented('DELETE', '/api/upstreams/{name}', '/api/upstreams/doc-up', undefined, 409);
      await documented('DELETE', '/api/routes/{id}', '/api/routes/doc-named?permanent=true', undefined, 204);
      await documented('DELETE', '/api/upstreams/{name}', '/api/upstreams/doc-up', undefined, 204);
    });

    test('POST /api/routes/:id/test: any JSON value as body, the answered and the failed shapes', async () => {
      for (const body of [{ name: 'Ada', tags: [1, 2] }, [1, 'two'], 42, 'plain text']) {
        const res = await documented('POST', '/api/routes/{id}/test', '/api/routes/doc/test', { method: 'POST', path: '/doc/x', headers: { 'x-probe': '1' }, body }, 200);
        assert.equal(res.json<{ data: { status: number } }>().data.status, 200);
        const sent = upstream.requests.at(-1)!;
        assert.equal(sent.body.toString(), typeof body === 'string' ? body : JSON.stringify(body));
      }
      await documented('POST', '/api/routes', '/api/routes', { id: 'doc-down', path: '/doc-down/*', upstream: `http://127.0.0.1:${await refusedPort()}` }, 201);
      const failed = await documented('POST', '/api/routes/{id}/test', '/api/routes/doc-down/test', undefined, 200);
      assert.equal(failed.json<{ data: { error: string } }>().data.error, 'UPSTREAM_UNREACHABLE');
      await documented('POST', '/api/routes/{id}/test', '/api/routes/doc/test', { verb: 'GET' }, 400);
    });

    test('users, auth, audit log, logs, API keys and the ops endpoints', async () => {
      const created = await documented('POST', '/api/users', '/api/users', { email: 'doc-user@example.com', password: 'a long enough password', role: 'user' }, 201);
      await documented('POST', '/api/users', '/api/users', { email: 'doc-user@example.com', password: 'a long enough password', role: 'user' }, 409);
      await documented('GET', '/api/users', '/api/users', undefined, 200);
      await documented('DELETE', '/api/users/{id}', `/api/users/${created.json<{ data: { id: string } }>().data.id}`, undefined, 204);
      await documented('GET', '/api/auth/session', '/api/auth/session', undefined, 200);
      const loginRes = await call('POST', '/api/auth/login', { body: ADMIN });
      assertDocumented('POST', '/api/auth/login', loginRes);
      assertDocumented('POST', '/api/auth/login', await call('POST', '/api/auth/login', { body: { email: ADMIN.email, password: 'wrong password' } }));
      await documented('GET', '/api/audit-log', '/api/audit-log?limit=100', undefined, 200);
      await documented('GET', '/api/logs', '/api/logs?level=debug', undefined, 200);
      await documented('GET', '/api/api-keys', '/api/api-keys', undefined, 200);
      await documented('POST', '/api/api-keys', '/api/api-keys', { name: 'docs' }, 503);
      for (const path of ['/version', '/health', '/health/live', '/health/serving', '/health/ready']) await documented('GET', path, path, undefined, 200);
      const logoutToken = await login(call, ADMIN);
      const loggedOut = await call('POST', '/api/auth/logout', { token: logoutToken });
      assertDocumented('POST', '/api/auth/logout', loggedOut);
      assert.equal(loggedOut.status, 200);
    });
  });

  test('GET /api/docs serves the interactive page, public', async () => {
    const res = await call('GET', '/api/docs');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.match(res.text, /swagger/i);
  });
});
