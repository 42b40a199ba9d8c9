import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * The build context's .dockerignore, as the image layout test applies it to COPY sources: a file
 * the image build would not see must not reach the reproduced image either.
 */

export function dockerignorePatterns(context: string): string[] {
  const file = path.join(context, '.dockerignore');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      if (line.startsWith('!')) throw new Error(`.dockerignore: exceptions (${line}) are not reproduced by the layout test`);
      return line.replace(/^\/+|\/+$/g, '');
    });
}

/** A path is excluded when it or one of its parent directories matches a pattern. */
export function isIgnored(relative: string, patterns: string[]): boolean {
  if (relative === '') return false;
  const parts = relative.split(path.sep);
  for (let end = 1; end <= parts.length; end += 1) {
    const prefix = parts.slice(0, end).join('/');
    if (patterns.some((pattern) => globPattern(pattern).test(prefix))) return true;
  }
  return false;
}

/** A .dockerignore pattern as a regular expression: `**` any directories, `*` and `?` within one. */
function globPattern(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i] as string;
    if (pattern.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (pattern.startsWith('**', i)) {
      source += '.*';
      i += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
