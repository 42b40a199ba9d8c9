import type { FieldError } from '@gateway/route-model';

export type LocatedFieldError = FieldError & { line?: number };

/**
 * One line per error, `<file>:<line> <field>: <message>` (the line when the parser knows it), so
 * editors and CI annotate them. File-level problems (`(file)`) read `<file>: <message>`.
 */
export function formatConfigErrors(file: string, errors: readonly LocatedFieldError[]): string[] {
  return errors.map((error) => {
    const location = error.line === undefined ? file : `${file}:${error.line}`;
    return error.field === '(file)' ? `${location}: ${error.message}` : `${location} ${error.field}: ${error.message}`;
  });
}
