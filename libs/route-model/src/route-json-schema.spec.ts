import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROUTE_INPUT_JSON_SCHEMA, ROUTE_JSON_SCHEMA, fieldSpecToJsonSchema, type JsonSchema } from './route-json-schema';
import { ROUTE_DEFAULTS } from './route-defaults';
import { arr, byteSize, forbidden, int, map, num, obj, str } from './field-spec';
import { normalizeRoute } from './normalize-route';

const prop = (schema: JsonSchema, dotted: string): JsonSchema => {
  let at = schema;
  for (const key of dotted.split('.')) {
    const next = at.properties?.[key];
    assert.ok(next, `${dotted}: ${key} missing`);
    at = next;
  }
  return at;
};

test('the route JSON Schema carries the table\'s descriptions, defaults and bounds', () => {
  assert.equal(ROUTE_JSON_SCHEMA.type, 'object');
  assert.equal(ROUTE_JSON_SCHEMA.additionalProperties, false);
  assert.deepEqual(prop(ROUTE_JSON_SCHEMA, 'timeout.request'), {
    type: 'integer',
    description: 'ms for one upstream attempt, response included',
    default: ROUTE_DEFAULTS.timeout.request,
    minimum: 100,
    maximum: 60_000,
  });
  assert.deepEqual(prop(ROUTE_JSON_SCHEMA, 'rateLimit.strategy').default, 'token-bucket');
  assert.ok(prop(ROUTE_JSON_SCHEMA, 'rateLimit.strategy').enum?.includes('sliding-window'));
  assert.deepEqual(prop(ROUTE_JSON_SCHEMA, 'rateLimit.max').exclusiveMinimum, true);
  assert.deepEqual(prop(ROUTE_JSON_SCHEMA, 'methods').items?.enum?.includes('PATCH'), true);
  assert.equal(prop(ROUTE_JSON_SCHEMA, 'methods').uniqueItems, true);
  assert.deepEqual(prop(ROUTE_JSON_SCHEMA, 'circuitBreaker.errorStatuses').default, [500, 502, 503, 504]);
  assert.equal(prop(ROUTE_JSON_SCHEMA, 'source').readOnly, true);
  assert.equal(prop(ROUTE_JSON_SCHEMA, 'headers.request.set').type, 'object');
  assert.match(prop(ROUTE_JSON_SCHEMA, 'headers.request.set').additionalProperties && typeof prop(ROUTE_JSON_SCHEMA, 'headers.request.set').additionalProperties === 'object' ? String((prop(ROUTE_JSON_SCHEMA, 'headers.request.set').additionalProperties as JsonSchema).description) : '', /\$\{requestId\}/);
  // A secret never lives in config: the forbidden key is not offered.
  assert.equal(prop(ROUTE_JSON_SCHEMA, 'auth.jwt').properties?.secret, undefined);
});

test('required lists exactly the fields every canonical route has', () => {
  assert.deepEqual(ROUTE_JSON_SCHEMA.required, ['id', 'path', 'upstream', 'enabled', 'description', 'priority', 'tags', 'stripPath', 'timeout', 'retry']);
  const result = normalizeRoute({ path: '/a/*', upstream: 'http://127.0.0.1:1' });
  assert.ok(result.ok);
  for (const key of ROUTE_JSON_SCHEMA.required ?? []) assert.notEqual((result.value as unknown as Record<string, unknown>)[key], undefined, key);
  for (const key of Object.keys(result.value)) assert.ok(ROUTE_JSON_SCHEMA.properties?.[key], `${key} is in the schema`);
  assert.deepEqual(prop(ROUTE_JSON_SCHEMA, 'healthCheck').required, ['enabled', 'interval', 'timeout', 'unhealthyThreshold', 'healthyThreshold', 'expectedStatus']);
});

test('the input form requires only what a client must send', () => {
  assert.deepEqual(ROUTE_INPUT_JSON_SCHEMA.required, ['path', 'upstream']);
  assert.equal(prop(ROUTE_INPUT_JSON_SCHEMA, 'healthCheck').required, undefined);
  assert.deepEqual(prop(ROUTE_INPUT_JSON_SCHEMA, 'circuitBreaker.fallback').required, ['status']);
  assert.deepEqual(prop(ROUTE_INPUT_JSON_SCHEMA, 'timeout.request'), prop(ROUTE_JSON_SCHEMA, 'timeout.request'));
});

test('each field kind maps to its JSON Schema form', () => {
  assert.deepEqual(fieldSpecToJsonSchema(str({ doc: 'd', oneOf: ['a', 'b'], default: 'a', maxLength: 3 })), { type: 'string', description: 'd', default: 'a', maxLength: 3, enum: ['a', 'b'] });
  assert.deepEqual(fieldSpecToJsonSchema(num({ doc: 'n', min: 0, exclusiveMin: true, max: 1 })), { type: 'number', description: 'n', minimum: 0, maximum: 1, exclusiveMinimum: true });
  assert.deepEqual(fieldSpecToJsonSchema(byteSize({ doc: 'b', min: 1 })).oneOf?.[0], { type: 'integer', minimum: 1 });
  assert.deepEqual(fieldSpecToJsonSchema(arr({ doc: 'l', items: int({ doc: 'i' }), minItems: 1 })), { type: 'array', description: 'l', items: { type: 'integer', description: 'i' }, minItems: 1 });
  assert.deepEqual(fieldSpecToJsonSchema(map({ doc: 'm', keyPattern: /^[a-z]+$/, keyMessage: () => '', values: str({ doc: 'v' }) })), {
    type: 'object',
    description: 'm',
    additionalProperties: { type: 'string', description: 'v' },
    'x-key-pattern': '^[a-z]+$',
  });
  assert.deepEqual(fieldSpecToJsonSchema(obj<{ a?: string }>({ a: str({ doc: 'a' }), gone: forbidden({ doc: 'x', message: () => '' }) }, { doc: 'o' })), {
    type: 'object',
    description: 'o',
    properties: { a: { type: 'string', description: 'a' } },
    additionalProperties: false,
  });
});
