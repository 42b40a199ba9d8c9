import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_ENV, caller, type Call } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
}

describe('OpenAPI document of the management API', () => {
  let cp: ControlPlaneProcess;
  let call: Call;
  before(async () => {
    cp = await startControlPlaneProcess({ env: ADMIN_ENV });
    call = caller(cp);
  });
  after(async () => {
    await cp?.stop();
  });

  test('GET /api/docs-json is public and lists the paths with their operations and bearer security', async () => {
    const res = await call('GET', '/api/docs-json');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /application\/json/);
    const doc = res.json<OpenApiDocument>();
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
      '/api/api-keys': ['get', 'post'],
      '/api/api-keys/{id}': ['get', 'delete'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      assert.ok(doc.paths[path], `${path} missing; has ${Object.keys(doc.paths).join(', ')}`);
      for (const method of methods) assert.ok(doc.paths[path]![method], `${method} ${path}`);
    }
    assert.ok(!Object.keys(doc.paths).some((p) => p === '/api' || p.includes('{path}')), 'the catch-all is not documented');
    assert.ok(doc.components.securitySchemes['bearer']);
    assert.ok(doc.paths['/api/users']!['post']!.security);
    assert.ok(doc.paths['/api/users']!['post']!.responses['201']);
    assert.ok(doc.paths['/api/users']!['post']!.responses['409']);
    assert.ok(doc.paths['/api/routes']!['post']!.responses['409'], 'routes document their conflicts');
    assert.ok(doc.paths['/api/routes/{id}']!['put']!.responses['422'], 'and read-only file routes');
    assert.ok(doc.components.schemas['CreateUserDto']);
    assert.ok(doc.components.schemas['LoginDto']);
    assert.ok(doc.components.schemas['CreateApiKeyDto'] && doc.components.schemas['CreatedApiKeyDto']);
    assert.ok(doc.paths['/api/api-keys']!['post']!.responses['503'], 'API_KEYS_NOT_CONFIGURED is documented');
  });

  test('GET /api/docs serves the interactive page, public', async () => {
    const res = await call('GET', '/api/docs');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.match(res.text, /swagger/i);
  });
});
