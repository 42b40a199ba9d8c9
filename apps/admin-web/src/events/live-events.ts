import { useSignal, type Signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api/api-client';
import { ApiError } from '../api/api-error';
import type { GatewayEvent } from '../api/api-types';
import { readServerSentEvents } from '../api/sse-reader';

/** Events kept from the stream while the page is open; older ones are on the API's pages. */
const KEPT = 200;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export type EventStreamStatus = 'connecting' | 'live' | 'reconnecting' | 'ended';

/**
 * Events stored since the events page opened, newest first, from GET /api/events/stream (fetch
 * with the cookie session, not EventSource: the resume point travels in Last-Event-ID and nothing
 * rides in the URL). Only the events page reads them, so the connection lives exactly as long as
 * that page: nothing is kept for the next visit, which asks the API afresh.
 */
export interface LiveEvents {
  events: Signal<readonly GatewayEvent[]>;
  status: Signal<EventStreamStatus>;
}

export function useLiveEvents(): LiveEvents {
  const events = useSignal<readonly GatewayEvent[]>([]);
  const status = useSignal<EventStreamStatus>('connecting');
  useEffect(() => {
    const controller = new AbortController();
    void follow({ events, status }, controller.signal);
    return () => controller.abort();
  }, []);
  return { events, status };
}

async function follow(state: LiveEvents, abort: AbortSignal): Promise<void> {
  // No Last-Event-ID on the first connection: the server starts at "now"; the page's list has the past.
  let lastEventId: string | undefined;
  let retryMs = FIRST_RETRY_MS;
  while (!abort.aborted) {
    state.status.value = lastEventId === undefined ? 'connecting' : 'reconnecting';
    let ended = false;
    try {
      const body = await api.openEventStream(lastEventId, abort);
      state.status.value = 'live';
      retryMs = FIRST_RETRY_MS;
      await readServerSentEvents(body, (frame) => {
        if (frame.event === 'end') {
          ended = true;
          return;
        }
        const event = parseEvent(frame.data);
        if (event === undefined) return;
        if (frame.id !== undefined && /^\d{1,15}$/.test(frame.id)) lastEventId = frame.id;
        if (state.events.value.some((e) => e.id === event.id)) return;
        state.events.value = [event, ...state.events.value].slice(0, KEPT);
      });
    } catch (error) {
      if (abort.aborted) return;
      // A 401 already led back to sign-in; a 403 will not change by retrying.
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        state.status.value = 'ended';
        return;
      }
    }
    if (abort.aborted) return;
    if (ended) {
      // Token expired or revoked, or the server stops: ask once whether the session still holds.
      const check = await api.currentSession().catch(() => undefined);
      if (check === undefined) {
        state.status.value = 'ended';
        api.onUnauthorized(new ApiError(401, 'UNAUTHORIZED', 'The session ended'));
        return;
      }
    }
    state.status.value = 'reconnecting';
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, retryMs);
      abort.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }
}

/** A frame that is not an event envelope is skipped: no byte from the wire may break the page. */
export function parseEvent(text: string): GatewayEvent | undefined {
  try {
    const value = JSON.parse(text) as Partial<GatewayEvent>;
    if (typeof value.id !== 'string' || typeof value.type !== 'string' || typeof value.createdAt !== 'string') return undefined;
    if (typeof value.data !== 'object' || value.data === null || Array.isArray(value.data)) return undefined;
    return { id: value.id, type: value.type, createdAt: value.createdAt, data: value.data };
  } catch {
    return undefined;
  }
}
