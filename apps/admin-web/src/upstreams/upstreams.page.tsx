import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, appBase } from '../api/api-client';
import type { Upstream } from '../api/api-types';
import { useQuery, useRevision } from '../api/query-cache';
import { useAction } from '../api/use-action';
import { ListTable } from '../layout/list-table';
import { ConfirmButton } from '../ops/confirm-button';
import { useFocusHeading } from '../layout/use-focus-heading';
import { PaginationNav } from '../routes/pagination-nav';
import { ErrorAlert } from '../layout/error-alert';

const UPSTREAMS_PER_PAGE = 20;

/** /admin/upstreams: proxy.yml's upstreams (read-only) and the API's, with their targets; edit and delete. */
export default function UpstreamsPage() {
  const location = useLocation();
  const page = Math.max(1, Number.parseInt(location.query['page'] ?? '1', 10) || 1);
  const [revision, bumpRevision] = useRevision('upstreams:');
  const result = useQuery(`upstreams:${page}:${revision}`, () => api.listUpstreams(UPSTREAMS_PER_PAGE, (page - 1) * UPSTREAMS_PER_PAGE));
  const heading = useFocusHeading();
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const total = result.data?.pagination.total ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / UPSTREAMS_PER_PAGE));
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        Upstreams
      </h1>
      <p>
        <a class="button" href={`${appBase.pathname}new-upstream`}>
          New upstream
        </a>
      </p>
      <p role="status" class="notice">
        {notice}
      </p>
      <ListTable id="upstream-list" title="All upstreams" noun="upstreams" query={result} emptyText="No upstreams yet." tableClass="upstreams" columns={['Name', 'Targets', 'Balancing', 'Source', 'Actions']}>
        {(items) =>
          items.map((upstream) => (
            <UpstreamRow
              key={upstream.name}
              upstream={upstream}
              onDeleted={() => {
                setNotice(`Deleted ${upstream.name}.`);
                bumpRevision();
              }}
            />
          ))
        }
      </ListTable>
      <PaginationNav page={page} pageCount={pageCount} hrefOf={(n) => `${appBase.pathname}upstreams${n > 1 ? `?page=${n}` : ''}`} />
    </main>
  );
}

function UpstreamRow({ upstream, onDeleted }: { upstream: Upstream; onDeleted: () => void }) {
  const [state, run] = useAction();
  async function remove(): Promise<void> {
    const done = await run(() => api.deleteUpstream(upstream.name).then(() => true));
    if (done === true) onDeleted();
  }
  const fromFile = upstream.source === 'file';
  return (
    <tr data-upstream={upstream.name}>
      <td>{upstream.name}</td>
      <td>
        <ul class="plain">
          {upstream.targets.map((target) => (
            <li key={target.url}>
              {target.url} <span class="notice">(weight {target.weight})</span>
            </li>
          ))}
        </ul>
      </td>
      <td>{upstream.balancing?.algorithm ?? 'round-robin'}</td>
      <td>{fromFile ? 'proxy.yml (read-only)' : 'API'}</td>
      <td>
        {!fromFile && (
          <div class="actions">
            <a href={`${appBase.pathname}upstreams/${encodeURIComponent(upstream.name)}/edit`} aria-label={`Edit ${upstream.name}`}>
              Edit
            </a>
            <ConfirmButton label="Delete" confirmLabel="Confirm delete" accessibleName={`Delete ${upstream.name}`} busy={state.busy} onConfirm={() => void remove()} />
          </div>
        )}
        <ErrorAlert message={state.error} />
      </td>
    </tr>
  );
}
