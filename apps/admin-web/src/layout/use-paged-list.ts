import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { useQuery, useRevision, type Query } from '../api/query-cache';
import { useLastDefined } from '../api/use-last-defined';
import { pageFromQuery, pageHref } from './page-address';

/** A page of a list as the API answers it (decision 5): the total says how many pages there are. */
interface PageAnswer {
  pagination: { total: number };
}

export interface PagedListSource<T extends PageAnswer> {
  /** The query-cache prefix of every page and filter of the list (`users:`): a change forgets them all. */
  prefix: string;
  /** What the answer depends on besides the page: a filter, an app-wide revision. Part of the key. */
  variant?: string;
  perPage: number;
  load: (range: { limit: number; offset: number }) => Promise<T>;
}

export interface PagedList<T> {
  /** The page in the address, its answer, whether it is loading and why it failed. */
  query: Query<T>;
  page: number;
  /** The list's length by the latest answer (kept while another page or filter loads). */
  total: number;
  /** PaginationNav's props: the links keep the address's path and other parameters (filters). */
  pages: { page: number; pageCount: number; hrefOf: (page: number) => string };
  /** What the last change made on the page did, for the page's status line. */
  notice: string | undefined;
  /** After a change made on the page: says what it did, forgets every page of the list and asks for this one again. */
  changed: (notice?: string) => void;
}

/**
 * The part every list page wrote alike: the page number from the address, one request per page
 * through the query cache, the page count from the answer's total, and the links to other pages.
 */
export function usePagedList<T extends PageAnswer>({ prefix, variant = '', perPage, load }: PagedListSource<T>): PagedList<T> {
  const location = useLocation();
  const page = pageFromQuery(location.query);
  const [revision, bumpRevision] = useRevision(prefix);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const query = useQuery(`${prefix}${variant}:${page}:${revision}`, () => load({ limit: perPage, offset: (page - 1) * perPage }));
  // The last answer's total while the next page loads: the page links stay, and so does their focus.
  const total = useLastDefined(query.data)?.pagination.total ?? 0;
  return {
    query,
    page,
    total,
    pages: { page, pageCount: Math.max(1, Math.ceil(total / perPage)), hrefOf: (n) => pageHref(location.path, location.query, n) },
    notice,
    changed: (what) => {
      setNotice(what);
      bumpRevision();
    },
  };
}
