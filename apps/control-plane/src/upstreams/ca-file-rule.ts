import { realpathSync } from 'node:fs';
import { caFileLocationProblem, readCaBundle } from '@gateway/config-file';

/**
 * Why `tls.caFile` cannot be stored, or undefined: the shared rule (@gateway/config-file
 * caFileLocationProblem: inside GATEWAY_CA_DIRS, no link out; data planes apply it again), then
 * the file must exist and load here as a PEM bundle of certificates (readCaBundle, what data
 * planes read it with). The last check is advisory: data planes may run on other hosts and check
 * their own copy (docs/tls.md). The answer names the path and what is wrong, never anything read
 * from the file.
 */
export function caFileProblem(label: string, file: string, dirs: readonly string[]): string | undefined {
  const rule = caFileLocationProblem(label, file, dirs);
  if (rule !== undefined) return rule;
  try {
    realpathSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return `${label}: ${code === 'ENOENT' ? `${file} does not exist` : `${file} cannot be read (${code ?? 'error'})`}`;
  }
  const load = readCaBundle(file);
  return load.ok ? undefined : `${label}: ${load.reason}`;
}
