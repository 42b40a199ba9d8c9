import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from './temp-dir';

/**
 * A throwaway certificate for 127.0.0.1/localhost (or the DNS names given, the first as its common
 * name), made by the system's openssl at test time so no private key is ever committed.
 * `certPath` can be handed to NODE_EXTRA_CA_CERTS.
 */
export function makeSelfSignedCert(dnsNames: readonly string[] = ['localhost']): { key: string; cert: string; certPath: string; keyPath: string; remove(): void } {
  const dir = makeTempDir('gateway-cert-');
  const keyPath = path.join(dir.path, 'key.pem');
  const certPath = path.join(dir.path, 'cert.pem');
  const altNames = [...dnsNames.map((name) => `DNS:${name}`), 'IP:127.0.0.1'].join(',');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', `/CN=${dnsNames[0] ?? 'localhost'}`,
      '-addext', `subjectAltName=${altNames}`],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8'), certPath, keyPath, remove: dir.remove };
}
