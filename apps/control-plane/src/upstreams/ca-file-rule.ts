import { realpathSync } from 'node:fs';
import { readCaBundle } from '@gateway/config-file';
import { absolutePathProblem, CA_DIRS_VARIABLE } from '../config/ca-dirs-config';

/** True when `file` lies below one of `dirs` (normalized absolute directories). */
function insideAny(file: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => file.length > dir.length + 1 && file.startsWith(`${dir}/`));
}

/**
 * The security rule, on the text alone (no file is touched before it passes, so a refused path
 * tells nothing about what exists): absolute, no `..` segment, inside a CA directory. The message
 * starts with `label`, the field's name.
 */
export function caFilePathProblem(label: string, file: string, dirs: readonly string[]): string | undefined {
  const shape = absolutePathProblem(file);
  if (shape !== undefined) return `${label} ${shape}`;
  if (!insideAny(file, dirs)) return `${label} must be inside a CA directory (${CA_DIRS_VARIABLE}: ${dirs.join(', ')})`;
  return undefined;
}

/**
 * Why `tls.caFile` cannot be stored, or undefined: the path rule, then a symbolic link must not
 * lead out of the CA directories, then the file must load here as a PEM bundle of certificates
 * (@gateway/config-file readCaBundle, what data planes read it with). The last check is advisory:
 * data planes may run on other hosts and check their own copy (docs/tls.md). The answer names
 * the path and what is wrong, never anything read from the file.
 */
export function caFileProblem(label: string, file: string, dirs: readonly string[]): string | undefined {
  const rule = caFilePathProblem(label, file, dirs);
  if (rule !== undefined) return rule;
  let real: string;
  try {
    real = realpathSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return `${label}: ${code === 'ENOENT' ? `${file} does not exist` : `${file} cannot be read (${code ?? 'error'})`}`;
  }
  if (!insideAny(real, dirs.flatMap(realDirectory))) return `${label}: ${file} leads out of the CA directories (a symbolic link)`;
  const load = readCaBundle(file);
  return load.ok ? undefined : `${label}: ${load.reason}`;
}

/** A CA directory as the file system resolves it (Kubernetes mounts are symbolic links); none when it does not exist. */
function realDirectory(dir: string): string[] {
  try {
    return [realpathSync(dir)];
  } catch {
    return [];
  }
}
