import { randomUUID } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `text` to a temp file beside `file`, then renames it over `file` (atomic on one file
 * system): another process (`gateway status`, `config:reload`) never reads a half-written file.
 */
export async function writeFileAtomic(file: string, text: string, mode = 0o600): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`);
  try {
    await writeFile(temp, text, { mode });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
