import { IncomingMessage, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { Socket } from 'node:net';

/**
 * A stored response handed back by the cache's upstream wrapper in place of the upstream's answer
 * (a 304 that refreshed the entry, a failure that stale-if-error covers, a stale answer while a
 * refresh runs). An upstream wrapper answers with a message or an error, so the stored response
 * takes the shape of a complete message; the dispatcher and the route's response phase then treat
 * it like any upstream response. Its socket is never connected: nothing is read from it.
 */
export function replayedResponse(status: number, headers: OutgoingHttpHeaders, body: Buffer | undefined): IncomingMessage {
  const message = new IncomingMessage(new Socket());
  message.statusCode = status;
  const incoming: IncomingHttpHeaders = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) incoming[name] = typeof value === 'number' ? String(value) : value;
  }
  message.headers = incoming;
  if (body !== undefined && body.length > 0) message.push(body);
  message.push(null);
  message.complete = true;
  return message;
}
