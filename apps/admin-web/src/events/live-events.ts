import { useSignal, type Signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api/api-client';
import type { GatewayEvent } from '../api/api-types';
import { followStream, type FollowStatus } from '../api/stream-follower';

/** Events kept from the stream while the page is open; older ones are on the API's pages. */
const KEPT = 200;

export type EventStreamStatus = FollowStatus;

export interface LiveEvents {
  events: Signal<readonly GatewayEvent[]>;
  status: Signal<EventStreamStatus>;
}

/**
 * Events stored since the events page opened, newest first, from GET /api/events/stream (fetch
 * with the cookie session, not EventSource: the resume point travels in Last-Event-ID and nothing
 * rides in the URL). Only the events page reads them, so the connection lives exactly as long as
 * that page: nothing is kept for the next visit, which asks the API afresh.
 */
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

function follow(state: LiveEvents, abort: AbortSignal): Promise<void> {
  // No Last-Event-ID on the first connection: the server starts at "now"; the page's list has the past.
  let lastEventId: string | undefined;
  return followStream(
    {
      open: (id, signal) => api.openEventStream(id, signal),
      lastEventId: () => lastEventId,
      onStatus: (status) => (state.status.value = status),
      onEvent: (frame) => {
        const event = parseEvent(frame.data);
        if (event === undefined) return;
        if (frame.id !== undefined && /^\d{1,15}$/.test(frame.id)) lastEventId = frame.id;
        if (state.events.value.some((e) => e.id === event.id)) return;
        state.events.value = [event, ...state.events.value].slice(0, KEPT);
      },
    },
    abort,
  );
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
