import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropUpstreamCorsHeaders, echoableHeaderList, withVaryToken } from './cors-headers';

test('withVaryToken adds Origin once, keeps the upstream tokens, and leaves Vary: * alone', () => {
  const cases: Array<[string | string[] | undefined, string]> = [
    [undefined, 'Origin'],
    ['', 'Origin'],
    ['Accept-Encoding', 'Accept-Encoding, Origin'],
    ['accept-encoding, origin', 'accept-encoding, origin'],
    ['ORIGIN', 'ORIGIN'],
    ['*', '*'],
    [['Accept-Encoding', 'Accept-Language'], 'Accept-Encoding, Accept-Language, Origin'],
    ['Originator', 'Originator, Origin'],
  ];
  for (const [value, expected] of cases) assert.equal(withVaryToken(value, 'Origin'), expected, JSON.stringify(value));
});

test('echoableHeaderList echoes only a bounded list of header-name tokens', () => {
  const cases: Array<[string | string[] | undefined, string | undefined]> = [
    [undefined, undefined],
    ['', undefined],
    ['content-type', 'content-type'],
    [' content-type , x-custom ', 'content-type , x-custom'],
    [['content-type', 'authorization'], 'content-type,authorization'],
    ['content-type,', undefined],
    ['bad header', undefined],
    ['x-a\u00e9', undefined],
    ['x-a;b', undefined],
    [`x-${'a'.repeat(3000)}`, undefined],
  ];
  for (const [value, expected] of cases) assert.equal(echoableHeaderList(value), expected, JSON.stringify(value)?.slice(0, 40));
});

test('dropUpstreamCorsHeaders removes every Access-Control-* response header and nothing else', () => {
  const headers = {
    'access-control-allow-origin': '*',
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': 'x',
    'access-control-allow-methods': 'GET',
    'access-control-allow-headers': 'x',
    'access-control-max-age': '5',
    vary: 'Accept-Encoding',
    'content-type': 'text/plain',
  };
  dropUpstreamCorsHeaders(headers);
  assert.deepEqual(headers, { vary: 'Accept-Encoding', 'content-type': 'text/plain' });
});
