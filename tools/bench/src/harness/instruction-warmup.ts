/**
 * The uninstrumented warm-up of an instruction comparison, shaped like the counted batches.
 *
 * Why (tools/bench/README.md, "Instructions under callgrind", settling; 2026-11-28): with the whole
 * warm-up on one keep-alive connection, the first batch's new connection brought a socket whose map
 * the optimised code had never seen, and ~50 functions of the request path (node's streams, the HTTP
 * parser's callbacks, the data plane's upstream request) were deoptimised at once ("wrong map") and
 * re-optimised over the next ~3,000 counted requests: each batch's figure fell from ~195k to ~115k
 * Ir a request through a process. Pauses longer than the data plane's upstream keep-alive (4 s) do
 * the same to the upstream side, which on a loaded machine (pause unit 10-30 s) happened in every
 * pause and on a quiet one in none. So the warm-up does what the batches will do: a fresh client
 * connection for each chunk of the batches' sizes, and a few gaps without traffic longer than the
 * upstream keep-alive and the span export's 5 s timer, so that the counted batches meet no object
 * shape and no timer-driven path the warm-up did not.
 */

/** One step of the warm-up: a chunk of requests on a fresh connection, or a gap without traffic. */
export type WarmupStep = { readonly requests: number } | { readonly gapSeconds: number };

/**
 * `total` requests in chunks of `sizes` taken in turn (the last chunk cut to fit), with `gaps` gaps
 * of `gapSeconds` spread evenly between the chunks (none before the first or after the last, so that
 * the warm-up ends on traffic, as the instrumented warm-up continues it).
 */
export function warmupPlan(total: number, sizes: readonly number[], gaps: number, gapSeconds: number): WarmupStep[] {
  if (sizes.length === 0 || sizes.some((n) => !(n > 0))) throw new Error('warm-up chunk sizes must be positive');
  const chunks: number[] = [];
  for (let left = total, k = 0; left > 0; k += 1) {
    const n = Math.min(left, sizes[k % sizes.length] as number);
    chunks.push(n);
    left -= n;
  }
  const usable = Math.min(gaps, Math.max(0, chunks.length - 1));
  // Gap j follows chunk round((j + 1) * chunks / (usable + 1)) - 1: evenly spaced, never after the last.
  const after = new Set(Array.from({ length: usable }, (_, j) => Math.round(((j + 1) * chunks.length) / (usable + 1)) - 1));
  const plan: WarmupStep[] = [];
  chunks.forEach((requests, k) => {
    plan.push({ requests });
    if (after.has(k) && k < chunks.length - 1 && gapSeconds > 0) plan.push({ gapSeconds });
  });
  return plan;
}
