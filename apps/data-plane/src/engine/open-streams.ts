import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { UpstreamResponse } from './upstream-response';

/** An event stream being proxied: the upstream response written into the client's. */
interface ProxiedStream {
  readonly upstream: UpstreamResponse;
  /** A response hook's stream over the upstream body piped into `res`, if any. */
  readonly body: Readable | undefined;
  readonly res: ServerResponse;
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
  track(upstream: UpstreamResponse, body: Readable | undefined, res: ServerResponse): void {
    if (!isEventStream(upstream.header('content-type'))) return;
    const stream: ProxiedStream = { upstream, body, res };
    this.streams.add(stream);
    res.once('close', () => this.streams.delete(stream));
  }

  get size(): number {
    return this.streams.size;
  }

  /** Ends every tracked stream as complete for the client and closes its upstream connection. */
  endAll(): number {
    const ending = [...this.streams];
    this.streams.clear();
    for (const { upstream, body, res } of ending) {
      // Unpiped first: the upstream's close must end the client's response, not cut it.
      body?.unpipe(res);
      upstream.finishEarly();
      res.end();
    }
    return ending.length;
  }
}

/**
 * A `text/event-stream` content type (Server-Sent Events). Asked of every proxied response
 * (`track`): a first character that is neither `t`/`T` nor one `trimStart` could remove answers
 * no, without the trimmed and lower-cased copies of the value (~1k instructions a response under
 * callgrind; issue 19, branch h-srv100).
 */
export function isEventStream(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType.length === 0) return false;
  const first = contentType.charCodeAt(0);
  // Whitespace trimStart removes is at most U+0020 in ASCII; beyond ASCII it is left to the full check.
  if ((first | 0x20) !== 0x74 /* t */ && first > 0x20 && first < 0x80) return false;
  return contentType.trimStart().toLowerCase().startsWith('text/event-stream');
}
