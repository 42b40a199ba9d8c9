import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeSelfSignedCert, makeTempDir } from '@gateway/testing';
import { contextFor, loadCertificates, type CertificateSet } from './tls-certificates';

type Cert = ReturnType<typeof makeSelfSignedCert>;

describe('TLS certificates', () => {
  const dir = makeTempDir('gateway-certs-');
  let first: Cert;
  let wildcard: Cert;
  let set: CertificateSet;

  before(async () => {
    first = makeSelfSignedCert(['first.test']);
    wildcard = makeSelfSignedCert(['w.test', '*.w.test']);
    const loaded = await loadCertificates(
      [
        { certFile: first.certPath, keyFile: first.keyPath },
        { certFile: wildcard.certPath, keyFile: wildcard.keyPath },
        // Named explicitly, and after the first: `first.test` stays with the first certificate.
        { certFile: wildcard.certPath, keyFile: wildcard.keyPath, serverNames: ['first.test', 'explicit.test'] },
      ],
      'TLSv1.2',
    );
    assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.errors));
    set = loaded.set;
  });

  after(() => {
    first.remove();
    wildcard.remove();
    dir.remove();
  });

  test("serves the certificate's own DNS names by default, in list order", () => {
    assert.deepEqual(set.names, ['first.test', 'w.test', '*.w.test', 'explicit.test']);
  });

  test('looks a name up exactly (case-insensitively), then as a one-label wildcard, else the first certificate', () => {
    assert.equal(contextFor(set, 'first.test'), set.exact.get('first.test'));
    assert.equal(contextFor(set, 'W.TEST'), set.exact.get('w.test'));
    assert.equal(contextFor(set, 'api.w.test'), set.wildcard.get('w.test'));
    assert.notEqual(contextFor(set, 'api.w.test'), set.fallback);
    assert.equal(contextFor(set, 'deep.api.w.test'), set.fallback);
    assert.equal(contextFor(set, 'explicit.test'), set.exact.get('explicit.test'));
    assert.equal(contextFor(set, 'other.test'), set.fallback);
    assert.equal(contextFor(set, undefined), set.fallback);
    assert.equal(contextFor(set, 'localhost'), set.fallback);
  });

  test('names the field and file of every certificate that does not load, and no key material', async () => {
    const notPem = path.join(dir.path, 'not.pem');
    writeFileSync(notPem, 'hello\n');
    const loaded = await loadCertificates(
      [
        { certFile: path.join(dir.path, 'missing.crt'), keyFile: first.keyPath },
        { certFile: notPem, keyFile: first.keyPath },
        { certFile: first.certPath, keyFile: wildcard.keyPath },
        { certFile: first.certPath, keyFile: notPem },
      ],
      'TLSv1.2',
    );
    assert.equal(loaded.ok, false);
    const errors = loaded.ok ? [] : loaded.errors;
    assert.deepEqual(
      errors.map((e) => e.field),
      ['proxy.tls.certificates[0].certFile', 'proxy.tls.certificates[1].certFile', 'proxy.tls.certificates[2]', 'proxy.tls.certificates[3]'],
    );
    assert.equal(errors[0]?.message, `${path.join(dir.path, 'missing.crt')} does not exist`);
    assert.ok(errors[2]?.message.includes(first.certPath) && errors[2].message.includes(wildcard.keyPath), errors[2]?.message);
    const text = JSON.stringify(errors);
    assert.equal(text.includes('PRIVATE KEY') || text.includes(first.key.split('\n')[1] as string), false);
  });
});
