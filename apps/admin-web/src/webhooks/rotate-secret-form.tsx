import { api } from '../api/api-client';
import type { WebhookWithSecret } from '../api/api-types';
import { useAction } from '../api/use-action';
import { describedBy, FormField } from '../layout/form-field';
import { ErrorAlert } from '../layout/error-alert';

const OVERLAPS: ReadonlyArray<{ seconds: number; label: string }> = [
  { seconds: 86_400, label: '1 day (default)' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 604_800, label: '7 days' },
  { seconds: 0, label: 'None: the old secret stops at once' },
];

/** Rotation: a new secret (shown once by the caller); the old one keeps signing for the overlap. */
export function RotateSecretForm({ webhookId, onRotated }: { webhookId: string; onRotated: (hook: WebhookWithSecret) => void }) {
  const [state, run] = useAction();
  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const hook = await run(() => api.rotateWebhookSecret(webhookId, Number(data.get('overlapSeconds'))));
    if (hook !== undefined) onRotated(hook);
  }
  const error = state.fieldErrors['overlapSeconds'];
  return (
    <form class="form-grid" onSubmit={(e) => void submit(e)} aria-labelledby="rotate-title">
      <h2 id="rotate-title">Rotate the signing secret</h2>
      <FormField id="rotate-overlap" label="Overlap" error={error} hint="While it lasts both secrets sign every request, so receivers can switch without losing a delivery.">
        <select id="rotate-overlap" name="overlapSeconds" {...describedBy('rotate-overlap', error, true)}>
          {OVERLAPS.map((o) => (
            <option key={o.seconds} value={o.seconds}>
              {o.label}
            </option>
          ))}
        </select>
      </FormField>
      <ErrorAlert message={state.error} />
      <div>
        <button type="submit" class="secondary" disabled={state.busy}>
          {state.busy ? 'Rotating…' : 'Rotate secret'}
        </button>
      </div>
    </form>
  );
}
