import { createHash, X509Certificate } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, constants as fs } from 'node:fs';

/** A CA bundle is a few hundred KB at most (Mozilla's roots: ~220 KB); anything larger is not one. */
export const MAX_CA_BUNDLE_BYTES = 1024 * 1024;

/** A loaded bundle: its PEM text and a short digest of it (what tells a rotated bundle from the old one). */
export interface CaBundle {
  readonly pem: Buffer;
  readonly digest: string;
}

export type CaBundleLoad = { ok: true; bundle: CaBundle } | { ok: false; reason: string };

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;
/**
 * Verdicts of certificatesProblem by the content's SHA-256: parsing Mozilla's 146 roots costs
 * ~40 ms of CPU, reading and hashing them well under 1 ms, and every load (every change message
 * for a route with a CA file) reads the file again. A few entries: files rarely change.
 */
const VERDICTS = new Map<string, string | undefined>();
const MAX_VERDICTS = 32;
const PEM_BEGIN = /-----BEGIN /g;

/**
 * Reads a PEM CA bundle (`tls.caFile`, `proxy.upstreamTls.caFile`): a regular file of at most
 * MAX_CA_BUNDLE_BYTES holding only CERTIFICATE blocks, each of which parses. A private key or any
 * other block is refused, so the setting cannot be pointed at a key file. The reason names the
 * file and what is wrong with it, never anything read from it.
 *
 * The file is opened non-blocking and checked through its descriptor: a FIFO or a device under
 * the name never hangs the caller, and what is checked is what is read.
 */
export function readCaBundle(file: string): CaBundleLoad {
  let fd: number;
  try {
    fd = openSync(file, fs.O_RDONLY | fs.O_NONBLOCK);
  } catch (error) {
    return { ok: false, reason: openFailure(file, error) };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, reason: `${file} is not a regular file` };
    if (stat.size > MAX_CA_BUNDLE_BYTES) return { ok: false, reason: `${file} is larger than ${MAX_CA_BUNDLE_BYTES / 1024} KiB: not a CA bundle` };
    const pem = Buffer.alloc(stat.size);
    let read = 0;
    while (read < pem.length) {
      const n = readSync(fd, pem, read, pem.length - read, read);
      if (n === 0) break;
      read += n;
    }
    const bundle = pem.subarray(0, read);
    const sha256 = createHash('sha256').update(bundle).digest('hex');
    const problem = verdictOf(sha256, bundle);
    if (problem !== undefined) return { ok: false, reason: `${file} ${problem}` };
    return { ok: true, bundle: { pem: bundle, digest: sha256.slice(0, 16) } };
  } catch (error) {
    return { ok: false, reason: `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    closeSync(fd);
  }
}

function verdictOf(sha256: string, bundle: Buffer): string | undefined {
  if (VERDICTS.has(sha256)) return VERDICTS.get(sha256);
  const problem = certificatesProblem(bundle.toString('latin1'));
  if (VERDICTS.size >= MAX_VERDICTS) VERDICTS.delete(VERDICTS.keys().next().value as string);
  VERDICTS.set(sha256, problem);
  return problem;
}

/** Why a text is not a bundle of PEM certificates (phrased to follow the file name), or undefined. */
export function certificatesProblem(text: string): string | undefined {
  const begins = text.match(PEM_BEGIN)?.length ?? 0;
  let certificates = 0;
  for (const match of text.matchAll(PEM_BLOCK)) {
    if (match[1] !== 'CERTIFICATE') return 'holds a PEM block that is not a certificate';
    try {
      new X509Certificate(match[0]);
    } catch {
      return `holds a certificate that does not parse (block ${certificates + 1})`;
    }
    certificates += 1;
  }
  if (certificates === 0) return 'holds no PEM certificate';
  if (begins !== certificates) return 'holds an unterminated PEM block';
  return undefined;
}

function openFailure(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${file} does not exist`;
  if (code === 'EACCES' || code === 'EPERM') return `${file} is not readable (${code})`;
  return `${file} cannot be read (${code ?? 'error'})`;
}
