/** One Server-Sent Event as the HTML standard's parser dispatches it. */
export interface ServerSentEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/** A frame bigger than this is not a monitoring second we can use: the reader gives up (and reconnects). */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * Reads a `text/event-stream` body and calls `onEvent` for each complete event (HTML, "Server-sent
 * events", parsing rules: `field: value` lines, a blank line dispatches, `:` lines are comments).
 * Resolves when the body ends; rejects on a read error or an oversized event.
 */
export async function readServerSentEvents(body: ReadableStream<Uint8Array>, onEvent: (event: ServerSentEvent) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  let size = 0;
  const line = (text: string): void => {
    if (text === '') {
      if (data.length > 0) onEvent({ id, event: event === '' ? 'message' : event, data: data.join('\n') });
      event = '';
      data = [];
      size = 0;
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    const value = colon === -1 ? '' : text.slice(colon + (text[colon + 1] === ' ' ? 2 : 1));
    if (field === 'data') {
      size += value.length;
      if (size > MAX_EVENT_CHARS) throw new Error('A monitoring stream event exceeded its size bound');
      data.push(value);
    } else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
  };
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = buffer.search(/\r\n|\r|\n/)) !== -1) {
        // A CR that ends the chunk may be the first half of a CRLF: wait for the next chunk.
        if (end === buffer.length - 1 && buffer[end] === '\r') break;
        const text = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
        line(text);
      }
      if (buffer.length > MAX_EVENT_CHARS) throw new Error('A monitoring stream line exceeded its size bound');
    }
  } finally {
    reader.releaseLock();
  }
}
