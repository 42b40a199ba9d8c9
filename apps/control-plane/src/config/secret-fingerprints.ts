import { createHmac } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** `<dataDir>/secret-fingerprints.json`: one keyed digest per secret the last start used. */
export const FINGERPRINTS_FILE = 'secret-fingerprints.json';

/** What a consequence of a switch is, per variable, for the warning. */
const LOSES: Record<string, string> = {
  JWT_SECRET: 'management sessions issued before no longer verify',
  API_KEY_SECRET: 'API keys created before no longer match their stored digests',
};

/**
 * An HMAC keyed with the secret over a fixed label: equal for equal secrets, and says nothing
 * about the secret (unlike a plain hash, it cannot be checked against a list of guesses without
 * running the HMAC per guess, and the secrets are 32+ random characters anyway).
 */
function fingerprint(secret: string): string {
  return createHmac('sha256', secret).update('gateway secret fingerprint v1').digest('hex');
}

/**
 * Compares the secrets this start uses with the fingerprints the previous start recorded, then
 * records this start's. Returns one warning per secret that changed, so a start never switches
 * secrets without saying so, even when both values came from `.env` (a value that differs from a
 * stored generated secret is refused earlier, in parseControlPlaneConfig).
 */
export function recordSecretFingerprints(dataDir: string, secrets: Record<string, string | undefined>): string[] {
  const file = path.join(dataDir, FINGERPRINTS_FILE);
  const previous = readFingerprints(file);
  const current: Record<string, string> = {};
  const warnings: string[] = [];
  for (const [name, secret] of Object.entries(secrets)) {
    if (secret === undefined) continue;
    current[name] = fingerprint(secret);
    const before = previous[name];
    if (before !== undefined && before !== current[name]) {
      warnings.push(`${name} is not the one the previous start used (${LOSES[name] ?? 'what it signed no longer verifies'}); if that was not intended, restore the previous value`);
    }
  }
  mkdirSync(dataDir, { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
  return warnings;
}

function readFingerprints(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    // A damaged file only loses one comparison; it is rewritten below.
    return {};
  }
}
