import { useState } from 'preact/hooks';
import { useQuery } from '../api/query-cache';
import { useAction } from '../api/use-action';
import { ErrorAlert } from '../layout/error-alert';
import { describedBy, FormField } from '../layout/form-field';
import { useFocusHeading } from '../layout/use-focus-heading';
import { opsApi } from '../ops/ops-api';
import type { AiSettings, AiSettingsInput, AssistantSettings, AssistantSettingsInput } from '../ops/ops-types';
import { AI_FIELDS, apiKeyChange, ASSISTANT_FIELDS, MASK, sectionOf, type AiField } from './ai-settings-fields';

/** /admin/ai-settings: the `ai` provider (API key write-only: masked, replace, remove) and the assistant's settings. */
export default function AiSettingsPage() {
  const status = useQuery('ai:status', () => opsApi.aiStatus());
  const heading = useFocusHeading();
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        AI settings
      </h1>
      <p class="notice">
        Incident analysis uses an OpenAI-compatible provider when one is set, and the built-in analyzer otherwise or when the provider fails.
        {status.data !== undefined && ` Provider ${status.data.provider?.configured === true ? 'configured' : 'not configured'}; spent this month $${(status.data.budget?.spentUsd ?? 0).toFixed(2)} of $${(status.data.budget?.monthlyUsd ?? 0).toFixed(2)}.`}
      </p>
      <ProviderSection />
      <AssistantSection />
    </main>
  );
}

/** API field errors name `ai.timeoutMs` (the settings document) or `timeoutMs`: both land on the field. */
function errorFor(fieldErrors: Record<string, string>, section: string, key: string): string | undefined {
  return fieldErrors[`${section}.${key}`] ?? fieldErrors[key];
}

function ProviderSection() {
  const loaded = useQuery('settings:ai', () => opsApi.aiSettings());
  const [saved, setSaved] = useState<AiSettings | undefined>(undefined);
  const [generation, setGeneration] = useState(0);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [state, run] = useAction();
  const view = saved ?? loaded.data;
  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    setNotice(undefined);
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const next = await run(() => opsApi.saveAiSettings({ ...sectionOf(AI_FIELDS, data), ...apiKeyChange(data) } as AiSettingsInput));
    if (next === undefined) return;
    setSaved(next);
    setGeneration((g) => g + 1);
    setNotice('Provider settings saved.');
  }
  const stored = (view as { apiKey?: unknown } | undefined)?.apiKey === MASK;
  const keyError = errorFor(state.fieldErrors, 'ai', 'apiKey');
  return (
    <section aria-labelledby="provider-title">
      <h2 id="provider-title">Provider</h2>
      <ErrorAlert message={loaded.error === undefined ? undefined : `The AI settings could not be loaded: ${loaded.error.message}`} />
      {view !== undefined && (
        <form key={generation} class="form-grid" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="provider-title">
          {AI_FIELDS.map((field) => (
            <SettingControl key={field.key} prefix="ai" field={field} value={(view as Record<string, unknown>)[field.key]} error={errorFor(state.fieldErrors, 'ai', field.key)} />
          ))}
          <FormField id="ai-apiKey" label="API key" error={keyError} hint={stored ? 'A key is stored (hidden). Type a new one to replace it; empty keeps it.' : 'No key is stored.'}>
            <input id="ai-apiKey" name="apiKey" type="password" autoComplete="off" placeholder={stored ? MASK : ''} {...describedBy('ai-apiKey', keyError, true)} />
          </FormField>
          {stored && (
            <label class="inline">
              <input name="removeApiKey" type="checkbox" /> Remove the stored key
            </label>
          )}
          <p data-testid="api-key-state">{stored ? 'API key: stored (hidden)' : 'API key: none'}</p>
          <ErrorAlert message={state.error} />
          <p role="status" class="notice">
            {notice}
          </p>
          <div>
            <button type="submit" disabled={state.busy}>
              {state.busy ? 'Saving…' : 'Save provider settings'}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

function AssistantSection() {
  const loaded = useQuery('settings:assistant', () => opsApi.assistantSettings());
  const [saved, setSaved] = useState<AssistantSettings | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [state, run] = useAction();
  const view = saved ?? loaded.data;
  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    setNotice(undefined);
    const next = await run(() => opsApi.saveAssistantSettings(sectionOf(ASSISTANT_FIELDS, new FormData(event.currentTarget as HTMLFormElement)) as AssistantSettingsInput));
    if (next === undefined) return;
    setSaved(next);
    setNotice('Assistant settings saved.');
  }
  return (
    <section aria-labelledby="assistant-title">
      <h2 id="assistant-title">Assistant</h2>
      <ErrorAlert message={loaded.error === undefined ? undefined : `The assistant settings could not be loaded: ${loaded.error.message}`} />
      {view !== undefined && (
        <form class="form-grid" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="assistant-title">
          {ASSISTANT_FIELDS.map((field) => (
            <SettingControl key={field.key} prefix="assistant" field={field} value={(view as Record<string, unknown>)[field.key]} error={errorFor(state.fieldErrors, 'assistant', field.key)} />
          ))}
          <ErrorAlert message={state.error} />
          <p role="status" class="notice">
            {notice}
          </p>
          <div>
            <button type="submit" disabled={state.busy}>
              {state.busy ? 'Saving…' : 'Save assistant settings'}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

function SettingControl({ prefix, field, value, error }: { prefix: string; field: AiField; value: unknown; error: string | undefined }) {
  const id = `${prefix}-${field.key}`;
  const aria = describedBy(id, error, field.hint !== undefined);
  if (field.kind === 'boolean') {
    return (
      <div class="field">
        <label class="inline">
          <input id={id} name={field.key} type="checkbox" defaultChecked={value === true} {...aria} /> {field.label}
        </label>
        {error !== undefined && (
          <span class="field-error" id={`${id}-error`} role="alert">
            {error}
          </span>
        )}
      </div>
    );
  }
  const text = value === null || value === undefined ? '' : String(value);
  return (
    <FormField id={id} label={field.label} error={error} {...(field.hint === undefined ? {} : { hint: field.hint })}>
      {field.kind === 'multiline' ? (
        <textarea id={id} name={field.key} rows={4} defaultValue={text} {...aria} />
      ) : field.kind === 'number' ? (
        <input id={id} name={field.key} type="number" step="any" defaultValue={text} {...aria} />
      ) : (
        <input id={id} name={field.key} type="text" defaultValue={text} {...aria} />
      )}
    </FormField>
  );
}
