import type { EventSeverity, Webhook, WebhookInput } from '../api/api-types';
import type { ActionState } from '../api/use-action';
import { SEVERITIES } from '../events/event-fields';
import { describedBy, FormField } from '../layout/form-field';
import { ErrorAlert } from '../layout/error-alert';

/**
 * The fields of a webhook (create and edit): url, event kinds (comma-separated, `*` for every kind),
 * severity filter (none ticked: every severity), description, enabled. The API's field errors land
 * on the field they name.
 */
export function WebhookForm({ idPrefix, title, submitLabel, initial, state, onSubmit, onCancel }: {
  idPrefix: string;
  title: string;
  submitLabel: string;
  initial?: Webhook;
  state: ActionState;
  onSubmit: (input: WebhookInput) => void;
  onCancel?: () => void;
}) {
  const { fieldErrors } = state;
  const id = (name: string): string => `${idPrefix}-${name}`;
  function submit(event: Event): void {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const events = String(data.get('events') ?? '')
      .split(/[\s,]+/)
      .filter((kind) => kind !== '');
    const severity = SEVERITIES.filter((s) => data.get(`severity-${s}`) !== null);
    const description = String(data.get('description') ?? '').trim();
    onSubmit({
      url: String(data.get('url') ?? '').trim(),
      events,
      severity: severity.length === 0 ? null : severity,
      enabled: data.get('enabled') !== null,
      description: description === '' ? null : description,
    });
  }
  const ticked = (s: EventSeverity): boolean => initial?.severity?.includes(s) ?? false;
  return (
    <form class="form-grid" onSubmit={submit} aria-labelledby={id('title')} noValidate>
      <h2 id={id('title')}>{title}</h2>
      <FormField id={id('url')} label="URL" error={fieldErrors['url']} hint="http:// or https://; private and loopback targets are refused unless OUTBOUND_ALLOW_CIDRS allows them.">
        <input id={id('url')} name="url" type="url" required maxLength={2048} autoComplete="off" defaultValue={initial?.url ?? ''} {...describedBy(id('url'), fieldErrors['url'], true)} />
      </FormField>
      <FormField id={id('events')} label="Event kinds" error={fieldErrors['events']} hint="Comma-separated kinds (ERROR_RATE_SPIKE), prefix patterns (circuit_breaker.*) or * for every kind.">
        <input id={id('events')} name="events" type="text" required autoComplete="off" defaultValue={initial?.events.join(', ') ?? '*'} {...describedBy(id('events'), fieldErrors['events'], true)} />
      </FormField>
      <fieldset class="checkboxes" aria-describedby={`${id('severity')}-hint${fieldErrors['severity'] === undefined ? '' : ` ${id('severity')}-error`}`}>
        <legend>Severities</legend>
        {SEVERITIES.map((s) => (
          <label key={s}>
            <input type="checkbox" name={`severity-${s}`} defaultChecked={ticked(s)} /> {s}
          </label>
        ))}
        <span class="notice" id={`${id('severity')}-hint`}>
          None ticked: every severity. Events without a severity (breaker openings) always pass.
        </span>
        {fieldErrors['severity'] !== undefined && (
          <span class="field-error" id={`${id('severity')}-error`} role="alert">
            {fieldErrors['severity']}
          </span>
        )}
      </fieldset>
      <FormField id={id('description')} label="Description (optional)" error={fieldErrors['description']}>
        <input id={id('description')} name="description" type="text" maxLength={200} autoComplete="off" defaultValue={initial?.description ?? ''} {...describedBy(id('description'), fieldErrors['description'])} />
      </FormField>
      <label class="checkbox">
        <input type="checkbox" name="enabled" defaultChecked={initial?.enabled ?? true} /> Enabled
      </label>
      {fieldErrors['enabled'] !== undefined && (
        <span class="field-error" role="alert">
          {fieldErrors['enabled']}
        </span>
      )}
      <ErrorAlert message={state.error} />
      <div class="actions">
        <button type="submit" disabled={state.busy}>
          {state.busy ? 'Saving…' : submitLabel}
        </button>
        {onCancel !== undefined && (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
