import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, makeTestCa, type TestCa } from '@gateway/testing';
import { MAX_CA_BUNDLE_BYTES, readCaBundle } from './ca-bundle-file';

describe('readCaBundle: a regular file of PEM certificates, nothing else', () => {
  const dir = makeTempDir('ca-bundle-');
  let ca: TestCa;
  let other: TestCa;
  const at = (name: string): string => path.join(dir.path, name);
  const reasonOf = (file: string): string => {
    const load = readCaBundle(file);
    assert.equal(load.ok, false, file);
    return (load as { reason: string }).reason;
  };

  before(() => {
    ca = makeTestCa('bundle test CA');
    other = makeTestCa('second CA');
  });
  after(() => {
    ca?.remove();
    other?.remove();
    dir.remove();
  });

  test('one certificate, and a bundle of two with text between them, load; the digest follows the content', () => {
    const one = readCaBundle(ca.certPath);
    assert.ok(one.ok);
    assert.deepEqual(one.bundle.pem, readFileSync(ca.certPath));
    writeFileSync(at('bundle.pem'), `# first\n${ca.cert}\nsecond:\n${other.cert}`);
    const two = readCaBundle(at('bundle.pem'));
    assert.ok(two.ok);
    assert.notEqual(two.bundle.digest, one.bundle.digest);
    assert.match(one.bundle.digest, /^[0-9a-f]{16}$/);
  });

  test('the verdict follows the content, not the path: a file overwritten with a key is refused at the next read', () => {
    writeFileSync(at('swapped.pem'), ca.cert);
    assert.ok(readCaBundle(at('swapped.pem')).ok);
    writeFileSync(at('swapped.pem'), readFileSync(path.join(path.dirname(ca.certPath), 'ca.key')));
    assert.equal(reasonOf(at('swapped.pem')), `${at('swapped.pem')} holds a PEM block that is not a certificate`);
    writeFileSync(at('swapped.pem'), ca.cert);
    assert.ok(readCaBundle(at('swapped.pem')).ok, 'a verdict seen before is reused');
  });

  test('missing, a directory, a FIFO (no hang) and an empty file are refused with the file named', () => {
    assert.equal(reasonOf(at('absent.pem')), `${at('absent.pem')} does not exist`);
    mkdirSync(at('a-dir'));
    assert.equal(reasonOf(at('a-dir')), `${at('a-dir')} is not a regular file`);
    execFileSync('mkfifo', [at('fifo.pem')]);
    assert.equal(reasonOf(at('fifo.pem')), `${at('fifo.pem')} is not a regular file`);
    writeFileSync(at('empty.pem'), '');
    assert.equal(reasonOf(at('empty.pem')), `${at('empty.pem')} holds no PEM certificate`);
  });

  test('a private key, a certificate with its key, a broken certificate and a huge file are refused without their content', () => {
    const key = readFileSync(path.join(path.dirname(ca.certPath), 'ca.key'), 'utf8');
    writeFileSync(at('key.pem'), key);
    writeFileSync(at('cert-and-key.pem'), `${ca.cert}${key}`);
    const body = ca.cert.split('\n').slice(1, -2).join('\n');
    writeFileSync(at('broken.pem'), `-----BEGIN CERTIFICATE-----\n${body.slice(0, 200)}\n-----END CERTIFICATE-----\n`);
    writeFileSync(at('unterminated.pem'), `${ca.cert}-----BEGIN CERTIFICATE-----\nMIIB\n`);
    writeFileSync(at('huge.pem'), Buffer.alloc(MAX_CA_BUNDLE_BYTES + 1, 0x41));
    const reasons = [
      [reasonOf(at('key.pem')), 'holds a PEM block that is not a certificate'],
      [reasonOf(at('cert-and-key.pem')), 'holds a PEM block that is not a certificate'],
      [reasonOf(at('broken.pem')), 'holds a certificate that does not parse (block 1)'],
      [reasonOf(at('unterminated.pem')), 'holds an unterminated PEM block'],
      [reasonOf(at('huge.pem')), 'is larger than 1024 KiB: not a CA bundle'],
    ];
    for (const [reason, expected] of reasons) {
      assert.ok(reason!.endsWith(expected!), `${reason} ends with ${expected}`);
      assert.ok(!reason!.includes('MII') && !reason!.includes('PRIVATE'), `no content in: ${reason}`);
    }
  });
});
