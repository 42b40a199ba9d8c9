import { pageNumbers } from './page-address';

/** Previous, next and direct page links (spec 4.3). */
export function PaginationNav({ page, pageCount, hrefOf }: { page: number; pageCount: number; hrefOf: (page: number) => string }) {
  if (pageCount <= 1) return null;
  return (
    <nav class="pagination" aria-label="Pages">
      {page > 1 ? (
        <a href={hrefOf(page - 1)} rel="prev">
          Previous
        </a>
      ) : (
        <span aria-disabled="true">Previous</span>
      )}
      <ol>
        {pageNumbers(page, pageCount).map((number) => (
          <li key={number}>
            {number === page ? (
              <span aria-current="page">{number}</span>
            ) : (
              <a href={hrefOf(number)} aria-label={`Page ${number}`}>
                {number}
              </a>
            )}
          </li>
        ))}
      </ol>
      {page < pageCount ? (
        <a href={hrefOf(page + 1)} rel="next">
          Next
        </a>
      ) : (
        <span aria-disabled="true">Next</span>
      )}
    </nav>
  );
}
