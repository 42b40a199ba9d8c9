import { mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write';

/** `<data-dir>/cli-tokens.json` (mode 0600): admin tokens the CLI logged in for, per gateway and email. */
export const TOKEN_CACHE_FILE = 'cli-tokens.json';

/** A token this close to its expiry is not reused: it could expire between the check and the call. */
const EXPIRY_MARGIN_MS = 60_000;

export interface CachedToken {
  /** The gateway's origin: a token is only ever sent back to the gateway that issued it. */
  url: string;
  email: string;
  token: string;
  expiresAt: string;
}

/**
 * The CLI's token cache. Each login counts in the credentials tier (5 per 15 minutes, decision
 * 21), so `routes:list` and `logs` reuse the token of an earlier login until it expires or the
 * gateway refuses it. The file holds bearer tokens: written 0600 in the 0700 data directory, and
 * ignored (then rewritten 0600) if anyone else can read it.
 */
export class TokenCache {
  constructor(private readonly dataDir: string) {}

  get file(): string {
    return path.join(this.dataDir, TOKEN_CACHE_FILE);
  }

  async find(url: string, email: string, now = Date.now()): Promise<string | undefined> {
    const entry = (await this.entries()).find((candidate) => sameKey(candidate, { url, email }));
    return entry !== undefined && Date.parse(entry.expiresAt) - EXPIRY_MARGIN_MS > now ? entry.token : undefined;
  }

  async store(entry: CachedToken, now = Date.now()): Promise<void> {
    const kept = (await this.entries()).filter((other) => !sameKey(other, entry) && Date.parse(other.expiresAt) > now);
    await this.write([...kept, entry]);
  }

  async forget(url: string, email: string): Promise<void> {
    const entries = await this.entries();
    const kept = entries.filter((entry) => !sameKey(entry, { url, email }));
    if (kept.length !== entries.length) await this.write(kept);
  }

  private async entries(): Promise<CachedToken[]> {
    let text: string;
    try {
      // Bearer tokens readable by others are not trusted to be ours alone.
      if (((await stat(this.file)).mode & 0o077) !== 0) return [];
      text = await readFile(this.file, 'utf8');
    } catch {
      return [];
    }
    try {
      const parsed = JSON.parse(text) as { tokens?: unknown };
      return Array.isArray(parsed.tokens) ? parsed.tokens.filter(isCachedToken) : [];
    } catch {
      return [];
    }
  }

  private async write(entries: CachedToken[]): Promise<void> {
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file, `${JSON.stringify({ tokens: entries }, null, 2)}\n`, 0o600);
  }
}

function sameKey(a: Pick<CachedToken, 'url' | 'email'>, b: Pick<CachedToken, 'url' | 'email'>): boolean {
  return a.url === b.url && a.email === b.email;
}

function isCachedToken(value: unknown): value is CachedToken {
  const entry = value as Partial<CachedToken> | null;
  return (
    entry !== null &&
    typeof entry === 'object' &&
    typeof entry.url === 'string' &&
    typeof entry.email === 'string' &&
    typeof entry.token === 'string' &&
    typeof entry.expiresAt === 'string' &&
    !Number.isNaN(Date.parse(entry.expiresAt))
  );
}
