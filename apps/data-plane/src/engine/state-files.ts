import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes JSON so a reader never sees half a file: temp file in the same directory, then rename. */
export async function writeJsonAtomic(filePath: string, data: unknown): Promise<void> {
  await mkdir(path.dirname(filePath), { recursive: true, mode: 0o700 });
  const temp = `${filePath}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, filePath);
}
