import path from 'node:path';

export const CA_DIRS_VARIABLE = 'GATEWAY_CA_DIRS';

/**
 * Where `tls.caFile` of an API upstream may point by default: one directory for CA bundles only.
 * Not /etc/gateway/tls (private keys of the HTTPS listener live there), not the whole of /etc/ssl.
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
 * GATEWAY_CA_DIRS: comma-separated absolute directories the management API lets `tls.caFile`
 * point into (docs/tls.md, "CA files of upstreams"). `/` is refused: it would allow every file.
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
