import type { ComponentChildren } from 'preact';

/**
 * A labelled control with its help text and the API's message for it. The control itself is the
 * child; it must carry `id={id}` and, when the field has an error, `aria-describedby` of `errorId(id)`.
 */
export function FormField({ id, label, error, hint, children }: { id: string; label: string; error?: string | undefined; hint?: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint !== undefined && (
        <span class="notice" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {error !== undefined && (
        <span class="field-error" id={errorId(id)} role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

export const errorId = (id: string): string => `${id}-error`;

/** aria attributes of a control: its hint and its error, when present. */
export function describedBy(id: string, error: string | undefined, hint = false): { 'aria-describedby'?: string; 'aria-invalid'?: true } {
  const ids = [hint ? `${id}-hint` : undefined, error === undefined ? undefined : errorId(id)].filter((x) => x !== undefined);
  return { ...(ids.length > 0 ? { 'aria-describedby': ids.join(' ') } : {}), ...(error === undefined ? {} : { 'aria-invalid': true }) };
}
