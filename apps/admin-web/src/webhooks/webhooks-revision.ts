import { signal } from '@preact/signals';

/**
 * Bumped by every change of a webhook, on any page, and part of the webhook queries' cache keys:
 * a page opened again within the cache's 15 s never shows the list or a webhook as it was before a
 * change (a page-local counter would restart at 0 and hit the old answer).
 */
export const webhooksRevision = signal(0);

export function webhooksChanged(): void {
  webhooksRevision.value += 1;
}

/** The same for delivery logs: bumped by a ping, a redelivery or Refresh. */
export const deliveriesRevision = signal(0);

export function deliveriesChanged(): void {
  deliveriesRevision.value += 1;
}
