import type { Webhook } from '../api/api-types';

/** Enabled, disabled by an admin, or disabled by the gateway (with its reason), and failing since when. */
export function WebhookStatus({ webhook }: { webhook: Webhook }) {
  return (
    <>
      <span class={`badge badge-${webhook.enabled ? 'live' : 'stale'}`}>{webhook.enabled ? 'Enabled' : 'Disabled'}</span>
      {webhook.disabledReason !== null && <span class="notice"> {webhook.disabledReason}</span>}
      {webhook.failingSince !== null && (
        <span class="notice">
          {' '}
          failing since <time dateTime={webhook.failingSince}>{new Date(webhook.failingSince).toLocaleString()}</time>
        </span>
      )}
    </>
  );
}

export const severityText = (webhook: Webhook): string => (webhook.severity === null ? 'All' : webhook.severity.join(', '));
