import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { CompiledRoute } from './compiled-route';
import type { DeadlineSlot } from './deadline-wheel';
import type { GatewayErrorCode } from './error-catalogue';
import type { UpstreamEndpoint } from './upstreams/upstream-endpoint';
import type { UpstreamGroup } from './upstreams/upstream-group';
import type { UpstreamResponse } from './upstream-response';

/** What wrappers (timeout, body limit) and the client-abort path need of an upstream call in flight. */
export interface InFlightUpstream {
  /** Ends the call: before the response head it fails with `code`; after it the response is cut. */
  cancel(code: GatewayErrorCode): void;
}

/**
 * Who gateway authentication found the caller to be (auth policy). Later policies read it here,
 * never back from the X-Gateway-* headers meant for the upstream: the rate limiter's `user` scope
 * counts `keyId`, else `userId`, so that every token of one subject spends one allowance.
 */
export interface CallerIdentity {
  readonly scheme: 'jwt' | 'session' | 'basic' | 'apiKey' | 'anonymous';
  /** JWT `sub`, the session's user id, the Basic user name (an API key's owner when the key names one). */
  readonly userId: string | undefined;
  /** The API key's id (scheme apiKey). */
  readonly keyId: string | undefined;
}

/**
 * The W3C trace context of one request's gateway hop (the tracing policy sets it; the access log
 * and span export read it). Lowercase hex, as on the wire.
 */
export interface TraceContext {
  readonly traceId: string;
  /** The gateway hop's own span id: the parent id the upstream sees. */
  readonly spanId: string;
  /** The caller's span id; '' when the gateway started the trace. */
  readonly parentSpanId: string;
  readonly sampled: boolean;
  /** The caller's tracestate, validated and bounded; '' when there is none to pass on. */
  readonly traceState: string;
}

/**
 * One client request on its way through the gateway. A class (not an object literal) so every
 * exchange shares one hidden class: it is created on every request.
 */
export class Exchange {
  correlationId = '';
  /** Set once matched; the exchange keeps its route even if the table is swapped mid-flight. */
  route: CompiledRoute | undefined = undefined;
  /** Status written to the client (0 until then). */
  status = 0;
  /** Set by gateway authentication (auth policy) once it accepted the request; unset on routes without it. */
  identity: CallerIdentity | undefined = undefined;
  /** Headers for the upstream request; request policies may change them before forwarding. */
  upstreamHeaders: OutgoingHttpHeaders = {};
  /** Extra headers on whatever response this exchange gets (proxied or local). */
  responseHeaders: Record<string, string> | undefined = undefined;
  /** Path (and query) sent upstream, computed when the route matched. */
  upstreamPath = '';
  /** Request body held in memory for replay (retries); when unset the client stream is piped. */
  bufferedBody: Buffer | undefined = undefined;
  /** The upstream call in flight (the latest attempt), so wrappers and the client-abort path can end it. */
  upstream: InFlightUpstream | undefined = undefined;
  /** The latest attempt's response once its head arrived. */
  upstreamResponse: UpstreamResponse | undefined = undefined;
  /** The response's bytesRead when the timeout policy last looked (gaps in a streamed body). */
  upstreamBytesSeen = -1;
  /** The current upstream attempt's deadline on the DeadlineWheel, if any. */
  deadline: DeadlineSlot<Exchange> | undefined = undefined;
  /** Upstream attempts made (retries count each). */
  attempts = 0;
  /** The endpoint of a named upstream the current attempt went to (see upstreams/target-choice.ts). */
  upstreamEndpoint: UpstreamEndpoint | undefined = undefined;
  upstreamGroup: UpstreamGroup | undefined = undefined;
  /** Endpoints earlier attempts went to, so a retry picks another; created on the second attempt. */
  triedEndpoints: UpstreamEndpoint[] | undefined = undefined;
  /** True once the client disconnected before the response finished. */
  clientAborted = false;
  /** Served by a gateway endpoint (/health, /metrics): not proxied traffic, not counted as such. */
  local = false;
  /**
   * The catalogued error the gateway answered with (or that a policy's custom reply stands for,
   * such as a custom rate-limit response); telemetry derives the request's outcome from it.
   */
  errorCode: GatewayErrorCode | undefined = undefined;
  /** Answered from the response cache. */
  cacheHit = false;
  /** Set by the tracing policy when tracing is on. */
  trace: TraceContext | undefined = undefined;
  /**
   * An upstream header value the gateway built from checked characters (the traceparent the
   * tracing policy formats): the upstream client does not scan a value equal to it again.
   */
  trustedUpstreamValue: string | undefined = undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly method: string,
    /** Normalized path (dot segments resolved), without the query. */
    readonly path: string,
    /** The raw query string including its leading `?`, or ''. */
    readonly query: string,
    readonly clientIp: string,
    /** performance.now() when the request arrived. */
    readonly startedAt: number,
  ) {}

  /** Adds a header to this exchange's response; copies first so shared header sets stay intact. */
  addResponseHeader(name: string, value: string): void {
    this.responseHeaders = { ...this.responseHeaders, [name]: value };
  }
}
