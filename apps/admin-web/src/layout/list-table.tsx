import type { ComponentChildren } from 'preact';
import type { Query } from '../api/query-cache';
import { DataTable } from './data-table';
import { ErrorAlert } from './error-alert';

/**
 * The list part of a page that lists one kind of thing (users, API keys, webhooks): its heading,
 * the load error, loading and empty states, and a scrollable table with the given column headings.
 * Each page keeps its own rows and actions; this is the part they all wrote alike.
 */
export function ListTable<T>({
  id,
  title,
  noun,
  query,
  emptyText,
  tableClass,
  columns,
  children,
}: {
  /** The heading's id, which labels the scrollable region. */
  id: string;
  title: string;
  /** Plural, for the messages: "The users could not be loaded", "Loading users…". */
  noun: string;
  query: Query<{ items: T[] }>;
  /** Shown when the list is empty; without it an empty list shows its empty table. */
  emptyText?: string;
  tableClass: string;
  columns: readonly string[];
  children: (items: T[]) => ComponentChildren;
}) {
  const items = query.data?.items;
  return (
    <>
      <h2 id={id}>{title}</h2>
      <ErrorAlert message={query.error === undefined ? undefined : `The ${noun} could not be loaded: ${query.error.message}`} />
      {query.loading && <p>Loading {noun}…</p>}
      {items !== undefined && items.length === 0 && emptyText !== undefined && <p>{emptyText}</p>}
      {items !== undefined && (items.length > 0 || emptyText === undefined) && (
        <DataTable labelledBy={id} tableClass={tableClass} columns={columns}>
          {children(items)}
        </DataTable>
      )}
    </>
  );
}

/** The end of a create form: what went wrong, then the submit button that says when it is busy. */
export function FormFooter({ error, busy, label, busyLabel }: { error: string | undefined; busy: boolean; label: string; busyLabel: string }) {
  return (
    <>
      <ErrorAlert message={error} />
      <div>
        <button type="submit" disabled={busy}>
          {busy ? busyLabel : label}
        </button>
      </div>
    </>
  );
}
