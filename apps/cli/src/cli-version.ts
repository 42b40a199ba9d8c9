import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The version in apps/cli/package.json (dist/ sits beside it). */
export function cliVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
