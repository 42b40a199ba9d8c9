import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, makeTestCa, type TestCa } from '@gateway/testing';
import { caFileProblem } from './ca-file-rule';

describe('caFileProblem: the rule, then the file as the data plane reads it', () => {
  const root = makeTempDir('ca-dirs-');
  const allowed = path.join(root.path, 'ca');
  const outside = path.join(root.path, 'elsewhere');
  let ca: TestCa;
  const dirs = (): string[] => [allowed];
  const problem = (file: string): string | undefined => caFileProblem('tls.caFile', file, dirs());

  before(() => {
    ca = makeTestCa('rule test CA');
    mkdirSync(allowed);
    mkdirSync(outside);
    copyFileSync(ca.certPath, path.join(allowed, 'good.pem'));
    copyFileSync(path.join(path.dirname(ca.certPath), 'ca.key'), path.join(allowed, 'ca.key'));
    writeFileSync(path.join(outside, 'secret.pem'), ca.cert);
    symlinkSync(path.join(allowed, 'good.pem'), path.join(allowed, 'alias.pem'));
    symlinkSync(path.join(outside, 'secret.pem'), path.join(allowed, 'escape.pem'));
    symlinkSync('/etc/passwd', path.join(allowed, 'passwd.pem'));
    mkdirSync(path.join(allowed, 'sub.pem'));
  });
  after(() => {
    ca?.remove();
    root.remove();
  });

  test('a bundle in the directory, directly or through a link that stays inside, is accepted', () => {
    assert.equal(problem(path.join(allowed, 'good.pem')), undefined);
    assert.equal(problem(path.join(allowed, 'alias.pem')), undefined);
  });

  test('a link out of the directories is refused even when its target is a certificate', () => {
    assert.equal(problem(path.join(allowed, 'escape.pem')), `tls.caFile: ${path.join(allowed, 'escape.pem')} leads out of the CA directories (a symbolic link)`);
    assert.equal(problem(path.join(allowed, 'passwd.pem')), `tls.caFile: ${path.join(allowed, 'passwd.pem')} leads out of the CA directories (a symbolic link)`);
  });

  test('missing, a directory, a private key: refused with the path and the reason, never the content', () => {
    assert.equal(problem(path.join(allowed, 'absent.pem')), `tls.caFile: ${path.join(allowed, 'absent.pem')} does not exist`);
    assert.equal(problem(path.join(allowed, 'sub.pem')), `tls.caFile: ${path.join(allowed, 'sub.pem')} is not a regular file`);
    const key = problem(path.join(allowed, 'ca.key'));
    assert.equal(key, `tls.caFile: ${path.join(allowed, 'ca.key')} holds a PEM block that is not a certificate`);
  });

  test('outside the directories nothing is looked at: an existing and a missing file get the same answer', () => {
    const existing = caFileProblem('tls.caFile', path.join(outside, 'secret.pem'), dirs());
    const missing = caFileProblem('tls.caFile', path.join(outside, 'absent.pem'), dirs());
    assert.equal(existing, `tls.caFile must be inside a CA directory (GATEWAY_CA_DIRS: ${allowed})`);
    assert.equal(missing, existing);
  });
});
