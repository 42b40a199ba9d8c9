import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { api, appBase } from '../api/api-client';
import { LOG_LEVELS, type LogLevel, type LogLine } from '../api/api-types';
import { useQuery } from '../api/query-cache';
import { useFocusHeading } from '../layout/use-focus-heading';
import { DataTable } from '../layout/data-table';

const LINES_ASKED = 100;
/** Following polls at most this often (issue 13): an admin following for minutes stays within the admin tier. */
export const FOLLOW_EVERY_MS = 5_000;
/** Lines kept on the page while following; the oldest go first. */
const LINES_KEPT = 1_000;

/** /admin/logs: recent lines of every plane, a level filter, and follow (a poll every 5 s). */
export default function LogsPage() {
  const location = useLocation();
  const requested = location.query['level'];
  const level: LogLevel | undefined = LOG_LEVELS.find((l) => l === requested);
  const result = useQuery(`logs:${level ?? 'all'}`, () => api.listLogs({ limit: LINES_ASKED, ...(level === undefined ? {} : { level }) }));
  const heading = useFocusHeading();
  const [following, setFollowing] = useState(false);
  const [later, setLater] = useState<{ key: string; lines: LogLine[]; error: string | undefined }>({ key: '', lines: [], error: undefined });
  const key = `${level ?? 'all'}:${result.data === undefined ? '' : 'loaded'}`;
  const followed = later.key === key ? later : { key, lines: [], error: undefined };
  const lines = [...(result.data?.items ?? []), ...followed.lines].slice(-LINES_KEPT);

  useEffect(() => {
    if (!following || result.data === undefined) return undefined;
    let current = true;
    let since = lines.at(-1)?.time;
    const timer = setInterval(() => {
      api.listLogs({ limit: LINES_ASKED, ...(level === undefined ? {} : { level }), ...(since === undefined ? {} : { since }) }).then(
        (page) => {
          if (!current) return;
          since = page.items.at(-1)?.time ?? since;
          setLater((previous) => ({ key, lines: [...(previous.key === key ? previous.lines : []), ...page.items].slice(-LINES_KEPT), error: undefined }));
        },
        (error: unknown) => current && setLater((previous) => ({ ...previous, key, error: error instanceof Error ? error.message : String(error) })),
      );
    }, FOLLOW_EVERY_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [following, key]);

  function chooseLevel(event: Event): void {
    const value = (event.currentTarget as HTMLSelectElement).value;
    location.route(`${appBase.pathname}logs${value === 'all' ? '' : `?level=${value}`}`);
  }

  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        Logs
      </h1>
      <div class="filters">
        <span class="field">
          <label for="log-level">Level</label>
          <select id="log-level" value={level ?? 'all'} onChange={chooseLevel}>
            <option value="all">All levels</option>
            {LOG_LEVELS.map((l) => (
              <option key={l} value={l}>
                {l} and more severe
              </option>
            ))}
          </select>
        </span>
        <button type="button" class={following ? '' : 'secondary'} aria-pressed={following} onClick={() => setFollowing(!following)}>
          Follow
        </button>
        <span class="notice">{following ? `New lines every ${FOLLOW_EVERY_MS / 1000} s` : 'Not following'}</span>
      </div>
      {result.error !== undefined && (
        <p class="error" role="alert">
          The logs could not be loaded: {result.error.message}
        </p>
      )}
      {followed.error !== undefined && (
        <p class="error" role="alert">
          Following stopped working: {followed.error}
        </p>
      )}
      <p role="status" class="summary">
        {result.loading ? 'Loading logs…' : `${lines.length} line${lines.length === 1 ? '' : 's'}`}
      </p>
      {lines.length > 0 && (
        <DataTable label="Log lines, oldest first" tableClass="log-lines" columns={['Time', 'Level', 'Plane', 'Context', 'Message']}>
          {lines.map((line, i) => (
            <tr key={`${line.time}:${i}`}>
              <td>
                <time dateTime={line.time}>{line.time.replace('T', ' ').replace('Z', '')}</time>
              </td>
              <td class={`level-${line.level}`}>{line.level}</td>
              <td>{line.instance === undefined ? line.plane : `${line.plane} (${line.instance})`}</td>
              <td>{line.context ?? '—'}</td>
              <td>
                {line.message}
                {line.correlationId !== null && <div class="notice">request {line.correlationId}</div>}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </main>
  );
}
