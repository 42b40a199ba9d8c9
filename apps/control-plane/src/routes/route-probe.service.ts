import http from 'node:http';
import https from 'node:https';
import { Injectable } from '@nestjs/common';
import { outboundConnectOptions, OutboundAddressRule, OutboundTargetRefusedError } from '@gateway/outbound-target';
import { compilePathPattern, createRouteMatcher, rewriteUpstreamPath, upstreamTargets, type FieldError, type Route } from '@gateway/route-model';
import type { AuditActor } from '../audit/audit-actor';
import { AuditLogService } from '../audit/audit-log.service';
import { DomainError } from '../common/domain-error';
import { UpstreamCatalog } from '../upstreams/upstream-catalog.service';
import { parseRouteProbeRequest, type RouteProbeRequest } from './route-probe-input';
import { RouteReads } from './route-reads.service';
import { toCanonicalRoute } from './route.mapper';

export const PREVIEW_BYTES = 4096;

/** The upstream answered (any status). */
export interface RouteProbeResponse {
  /** The URL the request went to, after the data plane's rewrite (decision 15). */
  url: string;
  status: number;
  /** From sending the request to the upstream's response headers. */
  latencyMs: number;
  headers: http.IncomingHttpHeaders;
  /** The first 4 KiB of the body as UTF-8 text. */
  bodyPreview: string;
  truncated: boolean;
}

/** The upstream could not be reached or did not answer within the route's request timeout. */
export interface RouteProbeFailure {
  url: string;
  error: 'UPSTREAM_UNREACHABLE' | 'UPSTREAM_TIMEOUT';
  message: string;
  latencyMs: number;
}

/**
 * `POST /api/routes/:id/test`: one request to the route's upstream, rewritten as a data plane
 * would (decision 15), bounded by the route's request timeout. Only the path rewrite is applied:
 * the route's policies (rate limit, auth, header rules, transforms, retries) are not.
 * The request is made on an admin's behalf from inside the network, so the outbound-target rule
 * applies (no cloud metadata, no link-local), and every call is audited whatever its outcome.
 */
@Injectable()
export class RouteProbe {
  constructor(
    private readonly reads: RouteReads,
    private readonly outbound: OutboundAddressRule,
    private readonly audit: AuditLogService,
    private readonly upstreams: UpstreamCatalog,
  ) {}

  async probe(id: string, body: unknown, actor: AuditActor): Promise<RouteProbeResponse | RouteProbeFailure> {
    const details: Record<string, unknown> = {};
    try {
      const route = await this.withCurrentTarget(toCanonicalRoute(await this.reads.live(id)));
      const request = parseRouteProbeRequest(body);
      const url = upstreamUrl(route, request);
      // Neither headers, body nor query: they may carry credentials.
      Object.assign(details, { method: request.method, upstream: `${url.origin}${url.pathname}` });
      const result = await send(url, request, route.timeout.request, this.outbound);
      details['outcome'] = 'error' in result ? result.error : result.status;
      return result;
    } catch (error) {
      details['outcome'] = error instanceof DomainError ? error.code : 'INTERNAL_ERROR';
      throw error;
    } finally {
      await this.audit.record({ actor: actor.email, action: 'route.test', target: id, ip: actor.ip, details });
    }
  }

  /**
   * A route naming an upstream is tested against that upstream's first target as it is now: its
   * stored `upstream` is the first target when the route was written, and targets change alone.
   */
  private async withCurrentTarget(route: Route): Promise<Route> {
    if (route.upstreamName === undefined) return route;
    const named = (await this.upstreams.list()).find((u) => u.name === route.upstreamName);
    const first = named === undefined ? undefined : upstreamTargets(named)[0];
    return first === undefined ? route : { ...route, upstream: first.url };
  }
}

function refused(error: OutboundTargetRefusedError): DomainError {
  return new DomainError('OUTBOUND_TARGET_REFUSED', error.message, { address: error.refusal.address, range: error.refusal.range.cidr });
}

/** The literal part of the pattern; an inner `*` stands for one segment (`x`). */
function defaultPath(pattern: string): string {
  const segments = pattern.split('/').slice(1);
  if (segments[segments.length - 1] === '*') segments.pop();
  const path = `/${segments.map((s) => (s === '*' ? 'x' : s)).join('/')}`;
  return path;
}

function upstreamUrl(route: Route, request: RouteProbeRequest): URL {
  const requested = request.path ?? defaultPath(route.path);
  const queryAt = requested.indexOf('?');
  const pathOnly = queryAt === -1 ? requested : requested.slice(0, queryAt);
  const query = queryAt === -1 ? '' : requested.slice(queryAt);
  // Matched as the data plane would, whatever the route's enabled flag (drafts can be tested).
  const matcher = createRouteMatcher([{ route: { ...route, enabled: true }, value: true }]);
  const errors: FieldError[] = [];
  if (matcher.match(request.method, pathOnly) === undefined) {
    const anyMethod = createRouteMatcher([{ route: { ...route, enabled: true, methods: undefined }, value: true }]);
    if (anyMethod.match('GET', pathOnly) === undefined) errors.push({ field: 'path', message: `path does not match the route's pattern ${route.path}`, code: 'VALIDATION_ERROR' });
    else errors.push({ field: 'method', message: `method ${request.method} is not one of the route's methods`, code: 'VALIDATION_ERROR' });
  }
  if (errors.length > 0) throw DomainError.fromFieldErrors(errors);
  const base = new URL(route.upstream);
  const rewritten = rewriteUpstreamPath(compilePathPattern(route.path), pathOnly, base.pathname, route.stripPath !== false);
  return new URL(`${base.origin}${rewritten}${query}`);
}

function send(url: URL, request: RouteProbeRequest, timeoutMs: number, outbound: OutboundAddressRule): Promise<RouteProbeResponse | RouteProbeFailure> {
  const started = process.hrtime.bigint();
  const elapsed = (): number => Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
  const client = url.protocol === 'https:' ? https : http;
  let connect: ReturnType<typeof outboundConnectOptions>;
  try {
    connect = outboundConnectOptions(outbound, url);
  } catch (error) {
    if (error instanceof OutboundTargetRefusedError) return Promise.reject(refused(error));
    throw error;
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (outcome: RouteProbeResponse | RouteProbeFailure | DomainError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (outcome instanceof DomainError) reject(outcome);
      else resolve(outcome);
    };
    const headers: http.OutgoingHttpHeaders = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
    const req = client.request(url, { method: request.method, headers, agent: false, ...connect });
    const timer = setTimeout(() => {
      finish({ url: url.toString(), error: 'UPSTREAM_TIMEOUT', message: `no complete answer within the route's request timeout (${timeoutMs} ms)`, latencyMs: elapsed() });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof OutboundTargetRefusedError) return finish(refused(error));
      finish({ url: url.toString(), error: 'UPSTREAM_UNREACHABLE', message: error.code ?? 'connection failed', latencyMs: elapsed() });
    });
    req.on('response', (res) => {
      const latencyMs = elapsed();
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (truncated: boolean): void => {
        const preview = Buffer.concat(chunks).subarray(0, PREVIEW_BYTES);
        finish({ url: url.toString(), status: res.statusCode ?? 0, latencyMs, headers: res.headers, bodyPreview: preview.toString('utf8'), truncated });
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // One byte past the preview proves there is more; the rest is never read.
        if (size > PREVIEW_BYTES) {
          done(true);
          res.destroy();
        }
      });
      res.on('end', () => done(false));
      res.on('error', () => done(size > PREVIEW_BYTES));
    });
    req.end(request.body);
  });
}
