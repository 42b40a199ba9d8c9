import { useState } from 'preact/hooks';
import { HTTP_METHODS } from '@gateway/route-model';
import { api } from '../../api/api-client';
import { describeError } from '../../api/api-error';
import { ErrorAlert } from '../../layout/error-alert';
import type { ProbeAnswer, ProbeRequest, Route } from '../../api/api-types';

/** One request to the route's upstream through POST /api/routes/:id/test, and what came back. */
export function RouteTestConsole({ route }: { route: Route }) {
  const [answer, setAnswer] = useState<ProbeAnswer | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const methods = route.methods ?? [...HTTP_METHODS];

  async function send(event: Event): Promise<void> {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const path = String(form.get('path') ?? '').trim();
    const body = String(form.get('body') ?? '');
    const probe: ProbeRequest = { method: String(form.get('method')) as NonNullable<ProbeRequest>['method'], ...(path === '' ? {} : { path }), ...(body === '' ? {} : { body }) };
    setBusy(true);
    setMessage(undefined);
    try {
      setAnswer(await api.testRoute(route.id, probe));
    } catch (error) {
      setAnswer(undefined);
      setMessage(describeError(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section aria-labelledby="test-heading">
      <h2 id="test-heading">Test the route</h2>
      <form class="test-console" onSubmit={(e) => void send(e)}>
        <span class="field">
          <label for="test-method">Method</label>
          <select id="test-method" name="method" defaultValue={methods[0]}>
            {methods.map((method) => (
              <option key={method}>{method}</option>
            ))}
          </select>
        </span>
        <span class="field">
          <label for="test-path">Path</label>
          <input id="test-path" name="path" type="text" placeholder={route.path.replace(/\*.*$/, '')} />
        </span>
        <span class="field wide">
          <label for="test-body">Body</label>
          <textarea id="test-body" name="body" rows={2} />
        </span>
        <button type="submit" disabled={busy}>
          Send test request
        </button>
      </form>
      <ErrorAlert message={message} />
      {answer !== undefined && (
        <div role="status" data-testid="test-result">
          {'status' in answer ? (
            <p>
              {answer.status} from {answer.url} in {answer.latencyMs} ms{answer.truncated ? ' (body truncated)' : ''}
            </p>
          ) : (
            <p>
              {answer.error}: {answer.message} ({answer.url})
            </p>
          )}
          {'bodyPreview' in answer && (
            <pre class="definition" tabIndex={0} aria-label="Response body">
              {answer.bodyPreview}
            </pre>
          )}
        </div>
      )}
    </section>
  );
}
