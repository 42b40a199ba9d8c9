/**
 * A list's page number lives in the address (`?page=3`), so a reload, Back or a shared link shows
 * the same page. Page 1 has no parameter.
 */
export function pageFromQuery(query: Record<string, string | undefined>): number {
  const page = Number.parseInt(query['page'] ?? '1', 10);
  return Number.isSafeInteger(page) && page >= 1 ? page : 1;
}

/** The address of another page of the list: the same path and the same other parameters (filters). */
export function pageHref(path: string, query: Record<string, string>, page: number): string {
  const search = new URLSearchParams(query);
  if (page > 1) search.set('page', String(page));
  else search.delete('page');
  const text = search.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** The page numbers to offer: the first, the last and two either side of the current one. */
export function pageNumbers(current: number, pageCount: number): number[] {
  const pages = new Set<number>([1, pageCount]);
  for (let page = current - 2; page <= current + 2; page += 1) if (page >= 1 && page <= pageCount) pages.add(page);
  return [...pages].filter((page) => page >= 1).sort((a, b) => a - b);
}
