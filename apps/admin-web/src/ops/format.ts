/** A timestamp for a table cell, in the admin's locale; a dash when there is none. */
export function when(iso: string | null | undefined): string {
  return iso === null || iso === undefined ? '—' : new Date(iso).toLocaleString();
}

/** 0..1 as a whole percentage. */
export function percent(ratio: number | undefined): string {
  return ratio === undefined ? '—' : `${Math.round(ratio * 100)}%`;
}

/** The API's field errors whose field is `path` or lies under it (`actions` holds `actions[1].duration`). */
export function errorsUnder(fieldErrors: Record<string, string>, path: string): string | undefined {
  const messages = Object.entries(fieldErrors)
    .filter(([field]) => field === path || field.startsWith(`${path}.`) || field.startsWith(`${path}[`))
    .map(([, message]) => message);
  return messages.length === 0 ? undefined : messages.join(' ');
}
