import { realpathSync } from 'node:fs';
import path from 'node:path';

/*
 * Where an upstream's `tls.caFile` may point when it did not come from the operator's own
 * proxy.yml (docs/tls.md, "Written through the API: GATEWAY_CA_DIRS"). One rule for both planes:
 * the control plane refuses such a path when the API writes it, and every data plane refuses it
 * again when a snapshot brings it, because nothing is trusted for arriving on an internal channel.
 */

export const CA_DIRS_VARIABLE = 'GATEWAY_CA_DIRS';

/**
 * Where `tls.caFile` may point by default: one directory for CA bundles only. Not
 * /etc/gateway/tls (private keys of the HTTPS listener live there), not the whole of /etc/ssl.
 */
export const DEFAULT_CA_DIRS: readonly string[] = ['/etc/gateway/ca'];

type Problems = Array<{ variable: string; message: string }>;

/** Why a path is not an absolute path without `..` segments (phrased to follow its name), or undefined. */
export function absolutePathProblem(value: string): string | undefined {
  if (value.includes('\0')) return 'must not contain a NUL character';
  if (!path.posix.isAbsolute(value)) return 'must be an absolute path';
  if (value.split('/').includes('..')) return "must not contain '..' segments";
  return undefined;
}

/**
 * GATEWAY_CA_DIRS: comma-separated absolute directories `tls.caFile` may point into. `/` is
 * refused: it would allow every file. Problems name the variable.
 */
export function parseCaDirs(env: NodeJS.ProcessEnv, problems: Problems): string[] {
  const raw = env[CA_DIRS_VARIABLE]?.trim();
  if (raw === undefined || raw === '') return [...DEFAULT_CA_DIRS];
  const dirs: string[] = [];
  for (const entry of raw.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const problem = absolutePathProblem(entry);
    const dir = path.posix.normalize(entry).replace(/\/+$/, '');
    if (problem !== undefined) problems.push({ variable: CA_DIRS_VARIABLE, message: `${JSON.stringify(entry.slice(0, 256))} ${problem}` });
    else if (dir === '') problems.push({ variable: CA_DIRS_VARIABLE, message: 'must not list / (it would allow every file)' });
    else if (!dirs.includes(dir)) dirs.push(dir);
  }
  if (dirs.length === 0 && problems.every((p) => p.variable !== CA_DIRS_VARIABLE)) {
    problems.push({ variable: CA_DIRS_VARIABLE, message: 'must list at least one absolute directory' });
  }
  return dirs;
}

/** True when `file` lies below one of `dirs` (normalized absolute directories). */
function insideAny(file: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => file.length > dir.length + 1 && file.startsWith(`${dir}/`));
}

/**
 * The rule on the text alone (no file is touched before it passes, so a refused path tells
 * nothing about what exists): absolute, no `..` segment, inside a CA directory. The message
 * starts with `label`, the field's name.
 */
export function caFilePathProblem(label: string, file: string, dirs: readonly string[]): string | undefined {
  const shape = absolutePathProblem(file);
  if (shape !== undefined) return `${label} ${shape}`;
  if (!insideAny(file, dirs)) return `${label} must be inside a CA directory (${CA_DIRS_VARIABLE}: ${dirs.join(', ')})`;
  return undefined;
}

/**
 * The whole rule: the path rule, then a symbolic link must not lead out of the CA directories
 * (resolving links reads no file's content). Undefined when the file may be read. A file that
 * does not exist passes here: reading it says so (readCaBundle).
 */
export function caFileLocationProblem(label: string, file: string, dirs: readonly string[]): string | undefined {
  const rule = caFilePathProblem(label, file, dirs);
  if (rule !== undefined) return rule;
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return undefined;
  }
  if (!insideAny(real, dirs.flatMap(realDirectory))) return `${label}: ${file} leads out of the CA directories (a symbolic link)`;
  return undefined;
}

/** A CA directory as the file system resolves it (Kubernetes mounts are symbolic links); none when it does not exist. */
function realDirectory(dir: string): string[] {
  try {
    return [realpathSync(dir)];
  } catch {
    return [];
  }
}
