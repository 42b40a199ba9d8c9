import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import type { CompiledHooks, CompiledRoute } from './compiled-route';
import { isGatewayError } from './error-catalogue';
import { Exchange } from './exchange';
import type { LocalReply, ProxiedResponse, RequestHookResult } from './policy';
import type { Logger } from './ports';
import { readRequestTarget } from './request-target';
import { readBodylessRequest } from './bodyless-request';
import { sendError, sendLocalReply, writeResponseHead, writeUpstreamResponseHead } from './responses';
import type { OpenStreams } from './open-streams';
import type { RouteTable } from './route-table';
import { endToEndHeadersOf } from './hop-by-hop';
import { prepareUpstreamRequest } from './upstream-request-headers';
import { requestClientIp } from './request-client-ip';
import type { OpenWebSockets } from './open-websockets';
import { isWebSocketHandshake, WebSocketUpgrades, type UpgradeCallbacks } from './websocket-upgrade';
import { releaseTarget } from './upstreams/target-choice';
import { ProxiedUpstreamResponse } from './proxied-response';
import type { UpstreamResponse } from './upstream-response';

/** Serves the gateway's own endpoints (/health, /metrics, ...) ahead of route matching. */
export interface LocalEndpoints {
  /** Handles the exchange and returns true when the path is one of its own. */
  handle(exchange: Exchange): boolean;
}

const EXCHANGE = Symbol('gateway.exchange');
type TrackedResponse = ServerResponse & { [EXCHANGE]: Exchange };

const EMPTY_BODY = Buffer.alloc(0);

/** nginx's convention for "the client closed the connection before the response". */
const CLIENT_CLOSED_REQUEST = 499;

function isPromise<T>(value: unknown): value is Promise<T> {
  return typeof value === 'object' && value !== null && typeof (value as Promise<T>).then === 'function';
}

/**
 * Runs every request through the phases: gateway-wide request hooks, local endpoints, route
 * match, the route's request hooks, its folded upstream call, its response hooks, and the
 * complete hooks once the response is over. Synchronous hooks never pay for a promise.
 */
export class RequestDispatcher {
  private table: RouteTable | undefined;

  /** One 'close' listener for every response (created once, not per request). */
  private readonly onResponseClose: (this: ServerResponse) => void;
  /** The upstream call of WebSocket handshakes (none: every request is forwarded as plain HTTP). */
  private readonly upgrades: WebSocketUpgrades | undefined;
  private readonly upgradeCallbacks: UpgradeCallbacks = {
    // The response object stays with the connection (an HTTP/2 stream closes it when the tunnel
    // ends): the exchange is over now, and must not complete again, nor as a client gone away.
    handshakeDone: (exchange) => {
      exchange.res.off('close', this.onResponseClose);
      this.finish(exchange);
    },
    fail: (exchange, error) => this.fail(exchange, error),
  };

  constructor(
    private readonly gatewayHooks: CompiledHooks,
    private readonly local: LocalEndpoints,
    private readonly logger: Logger,
    /** Where proxied event streams are registered, so a drain can end them (none: not tracked). */
    private readonly streams?: OpenStreams,
    /** Where relayed WebSocket connections are kept, so a reload or a drain can end them (none: upgrades are not proxied). */
    private readonly websockets?: OpenWebSockets,
  ) {
    this.upgrades = websockets === undefined ? undefined : new WebSocketUpgrades(websockets);
    const complete = (exchange: Exchange): void => this.complete(exchange);
    this.onResponseClose = function onResponseClose(this: ServerResponse): void {
      complete((this as TrackedResponse)[EXCHANGE]);
    };
  }

  /** Swaps the route table; requests in flight keep the route they matched. */
  setTable(table: RouteTable): void {
    this.table = table;
    // A reload keeps the connections of routes it keeps; the others are closed with 1001.
    this.websockets?.retain(table);
  }

  getTable(): RouteTable | undefined {
    return this.table;
  }

  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const { exchange, target } = this.begin(req, res);
    if (typeof target === 'string') {
      sendError(exchange, target);
      return;
    }
    if (this.local.handle(exchange)) return;

    const route = this.table?.match(exchange.method, exchange.path);
    if (route === undefined) {
      sendError(exchange, this.table === undefined ? 'SERVICE_UNAVAILABLE' : 'ROUTE_NOT_FOUND');
      return;
    }
    exchange.route = route;
    prepareUpstreamRequest(exchange, route);
    this.runRequestHooks(exchange, route, 0);
  };

  /** node's 'checkExpectation': an Expect header other than 100-continue. */
  readonly rejectExpectation = (req: IncomingMessage, res: ServerResponse): void => {
    sendError(this.begin(req, res).exchange, 'EXPECTATION_FAILED');
  };

  /** Creates the exchange, wires its completion and runs the gateway-wide request hooks. */
  private begin(req: IncomingMessage, res: ServerResponse): { exchange: Exchange; target: ReturnType<typeof readRequestTarget> } {
    const startedAt = performance.now();
    const target = readRequestTarget(req);
    readBodylessRequest(req);
    const valid = typeof target !== 'string';
    const exchange = new Exchange(
      req,
      res,
      req.method ?? 'GET',
      valid ? target.path : '',
      valid ? target.query : '',
      requestClientIp(req),
      startedAt,
    );
    (res as TrackedResponse)[EXCHANGE] = exchange;
    res.on('close', this.onResponseClose);
    // Gateway-wide request hooks are synchronous by contract (correlation id, version headers).
    const hooks = this.gatewayHooks.onRequest;
    if (hooks !== null) for (let i = 0; i < hooks.length; i += 1) (hooks[i] as (e: Exchange) => unknown)(exchange);
    return { exchange, target };
  }

  private runRequestHooks(exchange: Exchange, route: CompiledRoute, from: number): void {
    const hooks = route.onRequest;
    if (hooks !== null) {
      for (let i = from; i < hooks.length; i += 1) {
        let result: RequestHookResult | Promise<RequestHookResult>;
        try {
          result = (hooks[i] as NonNullable<typeof hooks>[number])(exchange);
        } catch (error) {
          this.fail(exchange, error);
          return;
        }
        if (result === undefined) continue;
        if (isPromise<RequestHookResult>(result)) {
          result.then(
            (reply) => (reply === undefined ? this.runRequestHooks(exchange, route, i + 1) : this.reply(exchange, reply)),
            (error: unknown) => this.fail(exchange, error),
          );
          return;
        }
        this.reply(exchange, result);
        return;
      }
    }
    if (exchange.clientAborted) return;
    const websocket = route.route.websocket?.enabled === true;
    // An HTTP/2 handshake (an extended CONNECT, RFC 8441) is a tunnel or nothing: served as a plain
    // request, as an HTTP/1.1 one is on a route without `websocket`, its 200 would open a tunnel to nowhere.
    const http2 = exchange.req.httpVersionMajor === 2;
    if ((websocket || http2) && isWebSocketHandshake(exchange.req)) {
      if (websocket && this.upgrades !== undefined) {
        this.upgrades.forward(exchange, route, this.upgradeCallbacks);
        return;
      }
      if (http2) {
        sendError(exchange, 'METHOD_NOT_ALLOWED');
        return;
      }
    }
    try {
      route.callUpstream(exchange, (error, response) => {
        if (error !== null) {
          this.fail(exchange, error);
          return;
        }
        // This runs inside the upstream socket's read: a throw must cost this request, not the process.
        try {
          this.respond(exchange, route, response as UpstreamResponse);
        } catch (failure) {
          (response as UpstreamResponse).destroy();
          this.fail(exchange, failure);
        }
      });
    } catch (error) {
      // A wrapper that throws instead of calling back must cost one request, not the process.
      this.fail(exchange, error);
    }
  }

  private reply(exchange: Exchange, reply: LocalReply): void {
    if (exchange.clientAborted) return;
    const hooks = exchange.route?.onResponse ?? null;
    if (reply.kind === 'response' && reply.replay === true && hooks !== null) {
      const body = reply.body === undefined ? EMPTY_BODY : typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
      // The reply's headers are the policy's own fresh object: hooks may change them in place.
      const proxied: ProxiedResponse = { status: reply.status, headers: reply.headers ?? {}, body, upstream: undefined };
      this.afterResponseHooks(
        exchange,
        hooks,
        proxied,
        () => {
          if (exchange.clientAborted || exchange.res.headersSent) return;
          // A head node refuses to write (a header value it rejects) costs this request a 500, not
          // the process: a throw in this callback would be an unhandled rejection.
          try {
            writeResponseHead(exchange, proxied.status, proxied.headers);
          } catch (error) {
            this.fail(exchange, error);
            return;
          }
          if (Buffer.isBuffer(proxied.body)) exchange.res.end(proxied.body);
          else this.pipeReplayed(exchange, proxied.body);
        },
        (error: unknown) => this.fail(exchange, error),
      );
      return;
    }
    try {
      sendLocalReply(exchange, reply);
    } catch (error) {
      this.fail(exchange, error);
    }
  }

  private pipeReplayed(exchange: Exchange, body: NodeJS.ReadableStream): void {
    (body as NodeJS.EventEmitter).once('error', () => exchange.res.destroy());
    body.pipe(exchange.res);
  }

  private respond(exchange: Exchange, route: CompiledRoute, upstream: UpstreamResponse): void {
    const { res } = exchange;
    if (exchange.clientAborted) {
      upstream.resume();
      return;
    }
    const status = upstream.statusCode;
    const hooks = route.onResponse;
    const headRules = route.responseHead;
    if (hooks === null || (headRules !== undefined && headRules !== null)) {
      // Nothing reads these headers, and at most header rules change them: no header map is built
      // for them (a value node refuses throws here, and costs this request: the caller catches it).
      writeUpstreamResponseHead(exchange, status, upstream.rawHeaders, headRules);
      this.pipeBody(exchange, upstream, undefined);
      return;
    }
    // The hooks' own map (they change it in place), built straight from the raw list: the upstream's
    // lazily built map (upstream.headers) stays unbuilt unless a hook reads it.
    const proxied = new ProxiedUpstreamResponse(status, endToEndHeadersOf(upstream.rawHeaders), upstream);
    this.afterResponseHooks(
      exchange,
      hooks,
      proxied,
      () => {
        if (exchange.clientAborted || res.headersSent) {
          upstream.destroy();
          return;
        }
        try {
          writeResponseHead(exchange, proxied.status, proxied.headers);
        } catch (error) {
          upstream.destroy();
          this.fail(exchange, error);
          return;
        }
        if (proxied.bodyUntouched) {
          this.pipeBody(exchange, upstream, undefined);
          return;
        }
        const body = proxied.body;
        if (Buffer.isBuffer(body)) {
          // A hook consumed the upstream body; a cut upstream still must not look complete.
          if (!upstream.complete) upstream.destroy();
          res.end(body);
        } else this.pipeBody(exchange, upstream, body);
      },
      (error: unknown) => {
        upstream.destroy();
        this.fail(exchange, error);
      },
    );
  }

  /**
   * Runs the response hooks, then `then`; `failed` with what a hook threw or rejected. Synchronous
   * hooks (header rules, CORS) run in the same tick, without a promise: the head is written and
   * the body flows as soon as it arrives.
   */
  private afterResponseHooks(
    exchange: Exchange,
    hooks: NonNullable<CompiledRoute['onResponse']>,
    proxied: ProxiedResponse,
    then: () => void,
    failed: (error: unknown) => void,
  ): void {
    let pending: Promise<void> | undefined;
    try {
      pending = this.runResponseHooks(exchange, hooks, 0, proxied);
    } catch (error) {
      failed(error);
      return;
    }
    if (pending === undefined) then();
    else pending.then(then, failed);
  }

  /** Undefined when every hook finished synchronously; else the promise of the rest. */
  private runResponseHooks(exchange: Exchange, hooks: NonNullable<CompiledRoute['onResponse']>, from: number, proxied: ProxiedResponse): Promise<void> | undefined {
    for (let i = from; i < hooks.length; i += 1) {
      const result = (hooks[i] as NonNullable<CompiledRoute['onResponse']>[number])(exchange, proxied);
      if (result !== undefined && isPromise<void>(result)) return result.then(() => this.runResponseHooks(exchange, hooks, i + 1, proxied));
    }
    return undefined;
  }

  /** The upstream body into the client's response, or a hook's stream over it (`body`). */
  private pipeBody(exchange: Exchange, upstream: UpstreamResponse, body: Readable | undefined): void {
    const { res } = exchange;
    this.streams?.track(upstream, body, res);
    if (body === undefined) {
      upstream.pipeTo(res);
      return;
    }
    // A cut upstream cuts the client's response; so does a hook's own stream failing.
    upstream.cutWith(res);
    body.once('error', () => res.destroy());
    body.pipe(res);
  }

  private fail(exchange: Exchange, error: unknown): void {
    if (exchange.clientAborted) return;
    if (isGatewayError(error)) {
      if (error.code === 'UPSTREAM_ERROR' || error.code === 'UPSTREAM_TIMEOUT' || error.code === 'UPSTREAM_CONNECT_TIMEOUT') {
        const cause = error.cause as NodeJS.ErrnoException | undefined;
        this.logger.warn(
          { correlationId: exchange.correlationId, routeId: exchange.route?.id, code: error.code, cause: cause?.code ?? cause?.message },
          'upstream call failed',
        );
      }
      sendError(exchange, error.code, error.retryAfter);
      return;
    }
    this.logger.error({ correlationId: exchange.correlationId, routeId: exchange.route?.id, err: String(error) }, 'request failed inside the gateway');
    sendError(exchange, 'INTERNAL_ERROR');
  }

  private complete(exchange: Exchange): void {
    const { res } = exchange;
    if (!res.writableFinished) {
      exchange.clientAborted = true;
      // A status set on the response without writing it is the server's own cut (408 from
      // gateway-server's clientError); otherwise the client left.
      if (exchange.status === 0) exchange.status = res.statusCode >= 400 ? res.statusCode : CLIENT_CLOSED_REQUEST;
      exchange.upstream?.cancel('UPSTREAM_ERROR');
    }
    this.finish(exchange);
  }

  /** The complete phase: the route's hooks, then the gateway's. */
  private finish(exchange: Exchange): void {
    releaseTarget(exchange);
    const routeHooks = exchange.route?.onComplete;
    if (routeHooks) for (let i = 0; i < routeHooks.length; i += 1) this.safely(routeHooks[i] as (e: Exchange) => void, exchange);
    const hooks = this.gatewayHooks.onComplete;
    if (hooks !== null) for (let i = 0; i < hooks.length; i += 1) this.safely(hooks[i] as (e: Exchange) => void, exchange);
  }

  private safely(hook: (e: Exchange) => void, exchange: Exchange): void {
    try {
      hook(exchange);
    } catch (error) {
      this.logger.error({ correlationId: exchange.correlationId, routeId: exchange.route?.id, err: String(error) }, 'complete hook failed');
    }
  }
}
