import { useLocation, useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, appBase } from '../api/api-client';
import { invalidateQueries, useQuery } from '../api/query-cache';
import { useAction } from '../api/use-action';
import { describedBy, FormField } from '../layout/form-field';
import { FormFooter } from '../layout/list-table';
import { useFocusHeading } from '../layout/use-focus-heading';
import { bodyOf, draftOf, NEW_UPSTREAM, type Algorithm, type HashOn, type UpstreamDraft } from './upstream-draft';

/** Create (`/admin/new-upstream`) and edit (`/admin/upstreams/:name/edit`) with one form. */
export default function UpstreamEditorPage() {
  const { params } = useRoute();
  const name = params['name'];
  const heading = useFocusHeading();
  const existing = useQuery(name === undefined ? 'editor:new-upstream' : `upstream:${name}`, () => (name === undefined ? Promise.resolve(undefined) : api.getUpstream(name)));
  const upstream = existing.data;
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        {name === undefined ? 'New upstream' : `Edit upstream ${name}`}
      </h1>
      {existing.loading && <p role="status">Loading the upstream…</p>}
      {existing.error !== undefined && (
        <p class="error" role="alert">
          The upstream could not be loaded: {existing.error.message}
        </p>
      )}
      {upstream?.source === 'file' && (
        <p class="notice" role="note">
          This upstream comes from proxy.yml: it changes only through the file (and a reload).
        </p>
      )}
      {(name === undefined || (upstream !== undefined && upstream.source !== 'file')) && <UpstreamForm key={name ?? 'new'} initial={upstream === undefined ? NEW_UPSTREAM : draftOf(upstream)} name={name} />}
    </main>
  );
}

/**
 * Targets and balancing; the route model (through the API) validates, and its messages land on
 * the field they name (`targets[1].url`, `balancing.hashKey`). Editing sends a merge patch, so
 * what this form does not show (health checks, outlier detection, breaker) stays as stored.
 */
function UpstreamForm({ initial, name }: { initial: UpstreamDraft; name: string | undefined }) {
  const location = useLocation();
  const [draft, setDraft] = useState<UpstreamDraft>(initial);
  const [state, run] = useAction();
  const errors = state.fieldErrors;
  const set = (change: Partial<UpstreamDraft>): void => setDraft((current) => ({ ...current, ...change }));
  const setTarget = (index: number, change: Partial<UpstreamDraft['targets'][number]>): void =>
    setDraft((current) => ({ ...current, targets: current.targets.map((t, i) => (i === index ? { ...t, ...change } : t)) }));

  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    const body = bodyOf(draft);
    const saved = await run(() => (name === undefined ? api.createUpstream({ name: draft.name.trim(), ...body }) : api.patchUpstream(name, body)));
    if (saved === undefined) return;
    invalidateQueries('upstreams:', `upstream:${saved.name}`);
    location.route(`${appBase.pathname}upstreams`);
  }

  return (
    <form class="form-grid" onSubmit={(e) => void submit(e)} aria-label={name === undefined ? 'New upstream' : `Edit ${name}`}>
      {name === undefined && (
        <FormField id="upstream-name" label="Name" error={errors['name']} hint="What routes name in their upstream field: letters, digits, '.', '_' or '-'.">
          <input id="upstream-name" value={draft.name} required maxLength={64} onInput={(e) => set({ name: e.currentTarget.value })} {...describedBy('upstream-name', errors['name'], true)} />
        </FormField>
      )}
      <fieldset class="targets">
        <legend>Targets</legend>
        {errors['targets'] !== undefined && (
          <p class="field-error" role="alert">
            {errors['targets']}
          </p>
        )}
        {draft.targets.map((target, index) => (
          <div class="target-row" key={index}>
            <FormField id={`target-${index}-url`} label={`Target ${index + 1} URL`} error={errors[`targets[${index}].url`]}>
              <input id={`target-${index}-url`} inputMode="url" value={target.url} required onInput={(e) => setTarget(index, { url: e.currentTarget.value })} {...describedBy(`target-${index}-url`, errors[`targets[${index}].url`])} />
            </FormField>
            <FormField id={`target-${index}-weight`} label={`Target ${index + 1} weight`} error={errors[`targets[${index}].weight`]}>
              <input id={`target-${index}-weight`} inputMode="numeric" value={target.weight} onInput={(e) => setTarget(index, { weight: e.currentTarget.value })} {...describedBy(`target-${index}-weight`, errors[`targets[${index}].weight`])} />
            </FormField>
            {draft.targets.length > 1 && (
              <button type="button" class="secondary" onClick={() => set({ targets: draft.targets.filter((_, i) => i !== index) })} aria-label={`Remove target ${index + 1}`}>
                Remove
              </button>
            )}
          </div>
        ))}
        <button type="button" class="secondary" onClick={() => set({ targets: [...draft.targets, { url: '', weight: '100' }] })}>
          Add target
        </button>
      </fieldset>
      <FormField id="upstream-algorithm" label="Balancing" error={errors['balancing.algorithm']}>
        <select id="upstream-algorithm" value={draft.algorithm} onChange={(e) => set({ algorithm: e.currentTarget.value as Algorithm })} {...describedBy('upstream-algorithm', errors['balancing.algorithm'])}>
          <option value="round-robin">Round robin (smooth weighted)</option>
          <option value="least-connections">Least connections</option>
          <option value="consistent-hash">Consistent hash</option>
        </select>
      </FormField>
      {draft.algorithm === 'consistent-hash' && (
        <>
          <FormField id="upstream-hash-on" label="Hash on" error={errors['balancing.hashOn']}>
            <select id="upstream-hash-on" value={draft.hashOn} onChange={(e) => set({ hashOn: e.currentTarget.value as HashOn })} {...describedBy('upstream-hash-on', errors['balancing.hashOn'])}>
              <option value="client-address">Client address</option>
              <option value="header">A header</option>
              <option value="cookie">A cookie</option>
            </select>
          </FormField>
          {draft.hashOn !== 'client-address' && (
            <FormField id="upstream-hash-key" label={draft.hashOn === 'header' ? 'Header name' : 'Cookie name'} error={errors['balancing.hashKey']}>
              <input id="upstream-hash-key" value={draft.hashKey} onInput={(e) => set({ hashKey: e.currentTarget.value })} {...describedBy('upstream-hash-key', errors['balancing.hashKey'])} />
            </FormField>
          )}
        </>
      )}
      <FormFooter error={state.error} busy={state.busy} label={name === undefined ? 'Create upstream' : 'Save upstream'} busyLabel="Saving…" />
    </form>
  );
}
