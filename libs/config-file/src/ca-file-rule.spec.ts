import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '@gateway/testing';
import { caFileLocationProblem, caFilePathProblem } from './ca-file-rule';

const DIRS = ['/etc/gateway/ca', '/srv/trust'];

test('the path rule: absolute, no .. segment, strictly inside a CA directory; the text alone decides', () => {
  const outside = 'f must be inside a CA directory (GATEWAY_CA_DIRS: /etc/gateway/ca, /srv/trust)';
  const cases: Array<[string, string | undefined]> = [
    ['/etc/gateway/ca/internal.pem', undefined],
    ['/etc/gateway/ca/team/internal.pem', undefined],
    ['/srv/trust/a.pem', undefined],
    ['/etc/gateway/ca/..data/a.pem', undefined],
    ['internal.pem', 'f must be an absolute path'],
    ['etc/gateway/ca/a.pem', 'f must be an absolute path'],
    ['/etc/gateway/ca/../../shadow', "f must not contain '..' segments"],
    ['/etc/gateway/ca/x/../a.pem', "f must not contain '..' segments"],
    ['/etc/gateway/ca/a\0.pem', 'f must not contain a NUL character'],
    ['/etc/shadow', outside],
    ['/etc/gateway/ca', outside],
    ['/etc/gateway/ca/', outside],
    ['/etc/gateway/cabinet/a.pem', outside],
    ['/etc/gateway/tls/server.key', outside],
  ];
  for (const [file, expected] of cases) assert.equal(caFilePathProblem('f', file, DIRS), expected, file);
});

describe('caFileLocationProblem: the path rule, then no symbolic link out of the directories', () => {
  const root = makeTempDir('ca-file-rule-');
  const allowed = path.join(root.path, 'ca');
  const outside = path.join(root.path, 'elsewhere');
  const problem = (file: string): string | undefined => caFileLocationProblem('tls.caFile', file, [allowed]);

  before(() => {
    mkdirSync(allowed);
    mkdirSync(outside);
    writeFileSync(path.join(allowed, 'good.pem'), 'not read by the rule');
    writeFileSync(path.join(outside, 'secret.pem'), 'not read by the rule');
    symlinkSync(path.join(allowed, 'good.pem'), path.join(allowed, 'alias.pem'));
    symlinkSync(path.join(outside, 'secret.pem'), path.join(allowed, 'escape.pem'));
    symlinkSync('/etc/passwd', path.join(allowed, 'passwd.pem'));
  });
  after(() => root.remove());

  test('a file in the directory, directly or through a link that stays inside, passes; so does a missing one (reading it says so)', () => {
    assert.equal(problem(path.join(allowed, 'good.pem')), undefined);
    assert.equal(problem(path.join(allowed, 'alias.pem')), undefined);
    assert.equal(problem(path.join(allowed, 'absent.pem')), undefined);
  });

  test('a link out of the directories is refused, naming the path', () => {
    for (const name of ['escape.pem', 'passwd.pem']) {
      const file = path.join(allowed, name);
      assert.equal(problem(file), `tls.caFile: ${file} leads out of the CA directories (a symbolic link)`);
    }
  });

  test('outside the directories: an existing and a missing file get the same answer', () => {
    const existing = problem(path.join(outside, 'secret.pem'));
    assert.equal(existing, `tls.caFile must be inside a CA directory (GATEWAY_CA_DIRS: ${allowed})`);
    assert.equal(problem(path.join(outside, 'absent.pem')), existing);
    assert.equal(problem('/etc/shadow'), existing, 'nothing is looked at for /etc/shadow either');
  });
});
