import { test } from 'node:test';
import assert from 'node:assert/strict';
import { absolutePathProblem, parseCaDirs } from './ca-file-rule';

type Problems = Array<{ variable: string; message: string }>;

test('default: /etc/gateway/ca only', () => {
  const problems: Problems = [];
  assert.deepEqual(parseCaDirs({}, problems), ['/etc/gateway/ca']);
  assert.deepEqual(parseCaDirs({ GATEWAY_CA_DIRS: '  ' }, problems), ['/etc/gateway/ca']);
  assert.deepEqual(problems, []);
});

test('a comma-separated list, normalized (trailing slashes, doubled slashes) and without repeats', () => {
  const problems: Problems = [];
  assert.deepEqual(parseCaDirs({ GATEWAY_CA_DIRS: '/srv/ca/, /etc//pki/ca-trust ,/srv/ca' }, problems), ['/srv/ca', '/etc/pki/ca-trust']);
  assert.deepEqual(problems, []);
});

test('relative entries, .. segments, / and an empty list are refused naming the variable', () => {
  const cases: Array<[string, string]> = [
    ['ca', '"ca" must be an absolute path'],
    ['/etc/gateway/../shadow', `"/etc/gateway/../shadow" must not contain '..' segments`],
    ['/', 'must not list / (it would allow every file)'],
    ['//', 'must not list / (it would allow every file)'],
    [',', 'must list at least one absolute directory'],
  ];
  for (const [value, message] of cases) {
    const problems: Problems = [];
    parseCaDirs({ GATEWAY_CA_DIRS: value }, problems);
    assert.deepEqual(problems, [{ variable: 'GATEWAY_CA_DIRS', message }], value);
  }
});

test('absolutePathProblem: the shape rule alone', () => {
  assert.equal(absolutePathProblem('/etc/gateway/ca/a.pem'), undefined);
  assert.equal(absolutePathProblem('/etc/gateway/ca/..data/a.pem'), undefined, 'a name starting with .. is not a .. segment (Kubernetes volumes)');
  assert.equal(absolutePathProblem('a.pem'), 'must be an absolute path');
  assert.equal(absolutePathProblem('./a.pem'), 'must be an absolute path');
  assert.equal(absolutePathProblem('/etc/gateway/ca/../../shadow'), "must not contain '..' segments");
  assert.equal(absolutePathProblem('/etc/gateway/ca/..'), "must not contain '..' segments");
  assert.equal(absolutePathProblem('/etc/gateway/ca/a\0.pem'), 'must not contain a NUL character');
});
