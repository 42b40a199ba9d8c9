import { useState } from 'preact/hooks';
import { api } from '../api/api-client';
import { ApiError } from '../api/api-error';
import type { SettingsDocument, SettingsView } from '../api/api-types';
import { useQuery } from '../api/query-cache';
import { useFocusHeading } from '../layout/use-focus-heading';
import { fromInput, LOG_LEVEL_CHOICES, readPath, SETTINGS_GROUPS, toInput, writePath, type SettingsField } from './settings-fields';

const MASK = '********';
type Draft = Record<string, string | boolean>;

function draftOf(view: SettingsView): Draft {
  const draft: Draft = {};
  for (const field of SETTINGS_GROUPS.flatMap((group) => group.fields)) {
    const value = readPath(view.settings, field.path);
    // A secret is never shown: an empty box keeps the stored one.
    draft[field.path] = field.kind === 'boolean' ? value === true : field.kind === 'secret' ? '' : toInput(field.kind, value);
  }
  return draft;
}

/** The document to PUT: what was loaded, with every field of the form applied. */
function documentOf(view: SettingsView, draft: Draft, removeSecrets: ReadonlySet<string>): SettingsDocument {
  const document = JSON.parse(JSON.stringify(view.settings)) as SettingsDocument;
  for (const field of SETTINGS_GROUPS.flatMap((group) => group.fields)) {
    const value = draft[field.path];
    if (field.kind === 'boolean') writePath(document, field.path, value === true);
    else if (field.kind === 'secret') writePath(document, field.path, removeSecrets.has(field.path) ? null : value === '' ? MASK : value);
    else writePath(document, field.path, fromInput(field.kind, String(value ?? '')));
  }
  return document;
}

/** General settings and SSO (PUT /api/settings); the API's field errors land on their fields. */
export default function SettingsPage() {
  const loaded = useQuery('settings', () => api.getSettings());
  const [saved, setSaved] = useState<SettingsView | undefined>(undefined);
  // Here, not in the form: a save remounts the form on the new version.
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const view = saved ?? loaded.data;
  const heading = useFocusHeading();
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        Settings
      </h1>
      {loaded.loading && view === undefined && <p role="status">Loading the settings…</p>}
      {loaded.error !== undefined && (
        <p class="error" role="alert">
          The settings could not be loaded: {loaded.error.message}
        </p>
      )}
      {view !== undefined && (
        <SettingsForm
          key={view.version}
          view={view}
          notice={notice}
          onSaved={(next) => {
            setSaved(next);
            setNotice(`Saved as version ${next.version}.`);
          }}
        />
      )}
    </main>
  );
}

function SettingsForm({ view, notice, onSaved }: { view: SettingsView; notice: string | undefined; onSaved: (view: SettingsView) => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(view));
  const [removeSecrets, setRemoveSecrets] = useState<Set<string>>(new Set());
  const [errors, setErrors] = useState<Array<{ field: string; message: string }>>([]);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    setBusy(true);
    try {
      const next = await api.saveSettings(documentOf(view, draft, removeSecrets));
      setErrors([]);
      onSaved(next);
    } catch (error) {
      const apiError = error instanceof ApiError ? error : undefined;
      setErrors(apiError?.fields.length ? apiError.fields : [{ field: '', message: apiError?.message ?? 'The settings could not be saved.' }]);
    } finally {
      setBusy(false);
    }
  }

  const errorsFor = (path: string) => errors.filter((e) => e.field === path || e.field.startsWith(`${path}.`) || e.field.startsWith(`${path}[`));
  const set = (path: string, value: string | boolean) => setDraft((previous) => ({ ...previous, [path]: value }));

  return (
    <form class="settings" onSubmit={submit} noValidate>
      <p class="summary">
        Version {view.version}
        {view.actor !== null && view.changedAt !== null ? `, changed by ${view.actor} at ${new Date(view.changedAt).toLocaleString()}` : ''}
      </p>
      {errors.length > 0 && (
        <div class="error" role="alert" id="settings-errors">
          <p>The settings were not saved: {errors.length === 1 ? 'one field needs' : `${errors.length} fields need`} attention.</p>
          <ul>
            {errors.map((e) => (
              <li key={`${e.field}:${e.message}`}>{e.message}</li>
            ))}
          </ul>
        </div>
      )}
      {SETTINGS_GROUPS.map((group) => (
        <fieldset key={group.title}>
          <legend>{group.title}</legend>
          {group.fields.map((field) => (
            <FieldControl
              key={field.path}
              field={field}
              value={draft[field.path] ?? ''}
              stored={field.kind === 'secret' && readPath(view.settings, field.path) === MASK}
              remove={removeSecrets.has(field.path)}
              errors={errorsFor(field.path).map((e) => e.message)}
              onInput={(value) => set(field.path, value)}
              onRemove={(remove) => setRemoveSecrets((previous) => (remove ? new Set([...previous, field.path]) : new Set([...previous].filter((p) => p !== field.path))))}
            />
          ))}
        </fieldset>
      ))}
      {notice !== undefined && errors.length === 0 && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Save settings'}
      </button>
    </form>
  );
}

interface FieldControlProps {
  field: SettingsField;
  value: string | boolean;
  stored: boolean;
  remove: boolean;
  errors: string[];
  onInput: (value: string | boolean) => void;
  onRemove: (remove: boolean) => void;
}

function FieldControl({ field, value, stored, remove, errors, onInput, onRemove }: FieldControlProps) {
  const id = `setting-${field.path.replace(/\./g, '-')}`;
  const described = [field.help === undefined ? undefined : `${id}-help`, errors.length > 0 ? `${id}-error` : undefined].filter((v) => v !== undefined).join(' ') || undefined;
  const common = { id, name: field.path, 'aria-describedby': described, 'aria-invalid': errors.length > 0 ? true : undefined };
  const text = (event: Event) => onInput((event.currentTarget as HTMLInputElement | HTMLTextAreaElement).value);
  let control;
  switch (field.kind) {
    case 'boolean':
      control = <input {...common} type="checkbox" checked={value === true} onChange={(event) => onInput((event.currentTarget as HTMLInputElement).checked)} />;
      break;
    case 'log-level':
      control = (
        <select {...common} value={String(value)} onChange={text}>
          {LOG_LEVEL_CHOICES.map((level) => (
            <option key={level} value={level}>
              {level === '' ? 'LOG_LEVEL (environment)' : level}
            </option>
          ))}
        </select>
      );
      break;
    case 'lines':
    case 'pem-list':
    case 'multiline':
    case 'secret':
      control = <textarea {...common} rows={field.kind === 'lines' ? 3 : 5} value={String(value)} onInput={text} placeholder={field.kind === 'secret' && stored ? 'A key is stored (hidden)' : undefined} autocomplete="off" spellcheck={false} />;
      break;
    case 'number':
      control = <input {...common} type="number" value={String(value)} onInput={text} />;
      break;
    default:
      control = <input {...common} type="text" value={String(value)} onInput={text} />;
  }
  return (
    <div class={`setting${field.kind === 'boolean' ? ' checkbox' : ''}`}>
      <label for={id}>{field.label}</label>
      {control}
      {field.help !== undefined && (
        <small id={`${id}-help`} class="help">
          {field.help}
        </small>
      )}
      {field.kind === 'secret' && stored && (
        <label class="inline">
          <input type="checkbox" checked={remove} onChange={(event) => onRemove((event.currentTarget as HTMLInputElement).checked)} /> Remove the stored key
        </label>
      )}
      {errors.length > 0 && (
        <p id={`${id}-error`} class="error field-error">
          {errors.join(' ')}
        </p>
      )}
    </div>
  );
}
