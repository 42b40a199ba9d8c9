/**
 * The request lifecycle, declared once. Every policy hooks into one or more of these phases;
 * `apps/data-plane/README.md` draws the order and the status each policy can produce.
 *
 *   request  -> may end the exchange early with a local reply (413, 429, 401, cache hit...)
 *   upstream -> wrappers around the call to the upstream, outermost first
 *               (circuit breaker > retry > timeout > forward)
 *   response -> may change the status, headers or body stream before they are written
 *   complete -> after the response has finished or the client went away (metrics, logs)
 */
export const PHASES = ['request', 'upstream', 'response', 'complete'] as const;
export type Phase = (typeof PHASES)[number];
