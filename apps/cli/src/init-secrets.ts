import { parseEnv } from 'node:util';
import { readStoredSecret, sameSecret, type PersistedSecretName } from '@gateway/control-plane/secret-file';
import { CommandFailure } from './command';
import { GENERATED_SECRETS, MIN_GENERATED_SECRET_LENGTH, newSecret, type GeneratedSecretName } from './init-templates';

/**
 * The data-dir file a one-process start generates when the variable is unset. CLUSTER_TOKEN keys
 * only the in-process bus there, so a start does not refuse a different one; init still keeps it.
 */
const STORED_AS: Record<GeneratedSecretName, PersistedSecretName> = {
  JWT_SECRET: 'jwt',
  API_KEY_SECRET: 'apiKey',
  CLUSTER_TOKEN: 'cluster',
  SETTINGS_ENCRYPTION_KEY: 'settings',
};
/** The secrets a start refuses to switch from the stored one (parseControlPlaneConfig). */
const REFUSED_IF_DIFFERENT: readonly GeneratedSecretName[] = ['JWT_SECRET', 'API_KEY_SECRET', 'SETTINGS_ENCRYPTION_KEY'];

export type SecretOrigin = { kind: 'env-file' } | { kind: 'data-dir'; file: string } | { kind: 'new' };

export interface InitSecret {
  name: GeneratedSecretName;
  value: string;
  origin: SecretOrigin;
}

/**
 * The value `init` writes for each secret: the one the existing .env holds, else the one an
 * earlier start generated into the data dir, else a new one. What a previous start signed with a
 * secret (API-key digests, sessions) must keep working after `init --force` (issue 11).
 */
export function chooseSecrets(existingEnvText: string | undefined, dataDir: string): InitSecret[] {
  const existing = existingEnvText === undefined ? {} : parseEnv(existingEnvText);
  return GENERATED_SECRETS.map((name): InitSecret => {
    const fromEnvFile = existing[name]?.trim();
    if (fromEnvFile !== undefined && fromEnvFile !== '') return { name, value: fromEnvFile, origin: { kind: 'env-file' } };
    const stored = readStoredSecret(dataDir, STORED_AS[name]);
    if (stored === undefined) return { name, value: newSecret(), origin: { kind: 'new' } };
    // A start refuses such a file too; copying it into .env would only move the problem.
    if (stored.secret.length < MIN_GENERATED_SECRET_LENGTH) {
      throw new CommandFailure(`gateway init: ${stored.file} holds fewer than ${MIN_GENERATED_SECRET_LENGTH} characters, too short for ${name}: fix or remove it`);
    }
    return { name, value: stored.secret, origin: { kind: 'data-dir', file: stored.file } };
  });
}

/**
 * The secrets of a kept .env that differ from the ones an earlier start stored in the data dir:
 * `gateway start` refuses them (docs/cli.md), so init says so now rather than leave it to the start.
 */
export function secretsDifferingFromStored(envText: string, dataDir: string): Array<{ name: GeneratedSecretName; file: string }> {
  const values = parseEnv(envText);
  const differing: Array<{ name: GeneratedSecretName; file: string }> = [];
  for (const name of REFUSED_IF_DIFFERENT) {
    const value = values[name]?.trim();
    if (value === undefined || value === '') continue;
    const stored = readStoredSecret(dataDir, STORED_AS[name]);
    if (stored !== undefined && !sameSecret(stored.secret, value)) differing.push({ name, file: stored.file });
  }
  return differing;
}
