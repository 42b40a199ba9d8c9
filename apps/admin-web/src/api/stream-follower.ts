import { api } from './api-client';
import { ApiError } from './api-error';
import { readServerSentEvents, type ServerSentEvent } from './sse-reader';

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export type FollowStatus = 'connecting' | 'live' | 'reconnecting' | 'ended';

export interface FollowOptions {
  /** Opens the stream (fetch with the cookie session) sending `lastEventId` as Last-Event-ID. */
  open(lastEventId: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array>>;
  /** The id to resume from, kept by the caller from the frames it accepted; undefined before any. */
  lastEventId(): string | undefined;
  /** Where a first connection starts (undefined: the server's "now"). */
  firstEventId?(): string | undefined;
  /** Every frame but `end`. */
  onEvent(event: ServerSentEvent): void;
  onStatus(status: FollowStatus): void;
}

/**
 * Keeps one of the control plane's SSE streams (monitoring, events) open until `signal` aborts:
 * reconnects resume from the last id and back off 1 s, 2 s, 4 s... up to 30 s; a 401 (already led
 * back to sign-in) or 403 ends it; an `end` frame for the token asks once whether the session still
 * holds and signs out when it does not.
 */
export async function followStream(options: FollowOptions, signal: AbortSignal): Promise<void> {
  let retryMs = FIRST_RETRY_MS;
  while (!signal.aborted) {
    const resumeFrom = options.lastEventId();
    options.onStatus(resumeFrom === undefined ? 'connecting' : 'reconnecting');
    let endReason: string | undefined;
    try {
      const body = await options.open(resumeFrom ?? options.firstEventId?.(), signal);
      options.onStatus('live');
      retryMs = FIRST_RETRY_MS;
      await readServerSentEvents(body, (event) => {
        if (event.event === 'end') endReason = parseEndReason(event.data);
        else options.onEvent(event);
      });
    } catch (error) {
      if (signal.aborted) return;
      // A 401 already led back to sign-in; a 403 will not change by retrying.
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        options.onStatus('ended');
        return;
      }
    }
    if (signal.aborted) return;
    if (endReason === 'token_expired' || endReason === 'token_revoked') {
      options.onStatus('ended');
      await confirmSession();
      return;
    }
    options.onStatus('reconnecting');
    await sleep(retryMs, signal);
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }
}

/** The stream ended with its token: ask once whether the session still holds before signing out. */
async function confirmSession(): Promise<void> {
  const check = await api.currentSession().catch(() => undefined);
  if (check === undefined) api.onUnauthorized(new ApiError(401, 'UNAUTHORIZED', 'The session ended'));
}

function parseEndReason(data: string): string | undefined {
  try {
    const value = JSON.parse(data) as { reason?: unknown } | null;
    return typeof value?.reason === 'string' ? value.reason : undefined;
  } catch {
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
