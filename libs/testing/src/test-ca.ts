import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from './temp-dir';

export interface TestCa {
  /** The CA certificate (PEM) and its file, for a `caFile` setting. */
  readonly cert: string;
  readonly certPath: string;
  /** A server key and certificate signed by this CA for `names` (DNS names, or IP addresses). */
  issue(names: readonly string[]): { key: string; cert: string };
  remove(): void;
}

/**
 * A throwaway certificate authority made with the system's openssl at test time (no private key is
 * ever committed), issuing server certificates for the names a test needs.
 */
export function makeTestCa(commonName = 'gateway test CA'): TestCa {
  const dir = makeTempDir('gateway-ca-');
  const file = (name: string): string => path.join(dir.path, name);
  const openssl = (args: string[]): void => {
    execFileSync('openssl', args, { stdio: 'ignore' });
  };
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1', '-subj', `/CN=${commonName}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  let issued = 0;
  return {
    cert: readFileSync(file('ca.pem'), 'utf8'),
    certPath: file('ca.pem'),
    issue(names) {
      issued += 1;
      const base = `server-${issued}`;
      const san = names.map((name) => (/^[0-9.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
      writeFileSync(file(`${base}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
      openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file(`${base}.key`), '-out', file(`${base}.csr`), '-subj', `/CN=${names[0] ?? 'server'}`]);
      openssl(['x509', '-req', '-in', file(`${base}.csr`), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file(`${base}.pem`),
        '-days', '1', '-extfile', file(`${base}.ext`)]);
      return { key: readFileSync(file(`${base}.key`), 'utf8'), cert: readFileSync(file(`${base}.pem`), 'utf8') };
    },
    remove: dir.remove,
  };
}
