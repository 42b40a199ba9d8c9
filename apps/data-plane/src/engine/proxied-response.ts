import type { OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { ProxiedResponse } from './policy';
import type { UpstreamResponse } from './upstream-response';

/**
 * The upstream's answer as response hooks see it. The body stream is made only when a hook reads
 * `body` (transform, cache capture): hooks that change headers alone (header rules, CORS) leave the
 * body to go straight from the upstream socket into the client's response, without a Readable.
 */
export class ProxiedUpstreamResponse implements ProxiedResponse {
  private replaced: Readable | Buffer | undefined = undefined;

  constructor(
    public status: number,
    public headers: OutgoingHttpHeaders,
    readonly upstream: UpstreamResponse,
  ) {}

  get body(): Readable | Buffer {
    return (this.replaced ??= this.upstream.stream());
  }

  set body(body: Readable | Buffer) {
    this.replaced = body;
  }

  /** No hook touched the body: it can be piped from the upstream as is. */
  get bodyUntouched(): boolean {
    return this.replaced === undefined;
  }
}
