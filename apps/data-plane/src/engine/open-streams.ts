import type { IncomingMessage, ServerResponse } from 'node:http';

/** An event stream being proxied: the upstream response piped into the client's. */
interface ProxiedStream {
  readonly upstream: IncomingMessage;
  /** What is piped into `res`: the upstream itself, or a response hook's stream over it. */
  readonly body: NodeJS.ReadableStream;
  readonly res: ServerResponse;
  /** The dispatcher's listener that cuts the client when the upstream closes early. */
  readonly onUpstreamClose: () => void;
}

/**
 * Server-Sent Event streams being proxied. They never end on their own, so a draining data plane
 * would otherwise wait for its whole drain timeout and then cut them; ended cleanly instead
 * (the last chunk, then the connection closes), an EventSource reconnects at once, through the
 * load balancer to a data plane that is still serving. Only event streams are registered: other
 * responses pay nothing for this.
 */
export class OpenStreams {
  private readonly streams = new Set<ProxiedStream>();

  /** Registers `upstream` when it is an event stream; it leaves the set when the client's response closes. */
  track(upstream: IncomingMessage, body: NodeJS.ReadableStream, res: ServerResponse, onUpstreamClose: () => void): void {
    if (!isEventStream(upstream.headers['content-type'])) return;
    const stream: ProxiedStream = { upstream, body, res, onUpstreamClose };
    this.streams.add(stream);
    res.once('close', () => this.streams.delete(stream));
  }

  get size(): number {
    return this.streams.size;
  }

  /** Ends every tracked stream as complete for the client and closes its upstream request. */
  endAll(): number {
    const ending = [...this.streams];
    this.streams.clear();
    for (const { upstream, body, res, onUpstreamClose } of ending) {
      // Without this the upstream's close below would destroy the client's response (a cut, not an end).
      upstream.off('close', onUpstreamClose);
      body.unpipe(res);
      res.end();
      upstream.destroy();
    }
    return ending.length;
  }
}

/** A `text/event-stream` content type (Server-Sent Events). */
export function isEventStream(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.trimStart().toLowerCase().startsWith('text/event-stream');
}
