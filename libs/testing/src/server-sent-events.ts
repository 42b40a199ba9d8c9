/** One Server-Sent Event as a client sees it. */
export interface ServerSentEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Reads Server-Sent Events from a fetch response (the way a browser's fetch-based reader does, with
 * an Authorization header) until `until` returns true for the events so far or the stream ends;
 * then cancels the body.
 */
export async function readServerSentEvents(res: Response, until: (events: ServerSentEvent[]) => boolean): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  if (res.body === null) return events;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event: ServerSentEvent = { data: '' };
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':');
          const name = line.slice(0, colon);
          const value = line.slice(colon + 1).replace(/^ /, '');
          if (name === 'id') event.id = value;
          else if (name === 'event') event.event = value;
          else if (name === 'data') event.data = event.data === '' ? value : `${event.data}\n${value}`;
        }
        events.push(event);
        if (until(events)) return events;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
