import { api, appBase } from '../api/api-client';
import type { Upstream } from '../api/api-types';
import { useAction } from '../api/use-action';
import { ErrorAlert } from '../layout/error-alert';
import { ListTable } from '../layout/list-table';
import { PaginationNav } from '../layout/pagination-nav';
import { useFocusHeading } from '../layout/use-focus-heading';
import { usePagedList } from '../layout/use-paged-list';
import { ConfirmButton } from '../layout/confirm-button';

const UPSTREAMS_PER_PAGE = 20;

/** /admin/upstreams: proxy.yml's upstreams (read-only) and the API's, with their targets; edit and delete. */
export default function UpstreamsPage() {
  const list = usePagedList({ prefix: 'upstreams:', perPage: UPSTREAMS_PER_PAGE, load: ({ limit, offset }) => api.listUpstreams(limit, offset) });
  const heading = useFocusHeading();
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
        {list.notice}
      </p>
      <ListTable id="upstream-list" title="All upstreams" noun="upstreams" query={list.query} emptyText="No upstreams yet." tableClass="upstreams" columns={['Name', 'Targets', 'Balancing', 'Source', 'Actions']}>
        {(items) =>
          items.map((upstream) => (
            <UpstreamRow
              key={upstream.name}
              upstream={upstream}
              onDeleted={() => list.changed(`Deleted ${upstream.name}.`)}
            />
          ))
        }
      </ListTable>
      <PaginationNav {...list.pages} />
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
