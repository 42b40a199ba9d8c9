import type { ComponentChildren } from 'preact';

/** A column heading; `numeric` right-aligns the column (counts, latencies, ratios). */
export type Column = string | { label: string; numeric: true };

/**
 * Every table of the admin pages: a keyboard-scrollable region (narrow screens scroll the table,
 * not the page), named by a heading (`labelledBy`) or a label, holding a `grid` table whose column
 * headings are `th scope="col"`. Pages give the rows; the header markup is written here once.
 */
export function DataTable({
  columns,
  tableClass,
  testId,
  labelledBy,
  label,
  caption,
  children,
}: {
  columns: readonly Column[];
  /** Classes added to `grid` (the page's column widths). */
  tableClass?: string;
  testId?: string;
  /** The id of the heading that names the region; or `label` when there is none. */
  labelledBy?: string;
  label?: string;
  /** A caption read by screen readers only. */
  caption?: string;
  /** The rows. */
  children: ComponentChildren;
}) {
  const name = labelledBy === undefined ? { 'aria-label': label } : { 'aria-labelledby': labelledBy };
  return (
    <div class="table-scroll" tabIndex={0} role="region" {...name}>
      <table class={tableClass === undefined ? 'grid' : `grid ${tableClass}`} data-testid={testId}>
        {caption !== undefined && <caption class="visually-hidden">{caption}</caption>}
        <TableHead columns={columns} />
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** The header row: one `th scope="col"` per column. */
export function TableHead({ columns }: { columns: readonly Column[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) =>
          typeof column === 'string' ? (
            <th key={column} scope="col">
              {column}
            </th>
          ) : (
            <th key={column.label} scope="col" class="number">
              {column.label}
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}
