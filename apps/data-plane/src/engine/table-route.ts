import type { CompiledPathPattern, Route } from '@gateway/route-model';
import type { CompiledRoute } from './compiled-route';
import type { CompiledPipeline } from './pipeline';
import type { RoutePipelines } from './route-pipelines';
import type { UpstreamTls } from './upstream-tls';
import type { UpstreamPools, UpstreamTarget } from './upstream-target';

/** What the routes of one table build share: their pipelines and the upstream pools. */
export interface RouteBuild {
  readonly pipelines: RoutePipelines;
  readonly pools: UpstreamPools;
}

/**
 * A route of a RouteTable: what matching needs is built when the route loads; its pipeline (hooks
 * and folded upstream call) is compiled the first time any of them is read, which is the route's
 * first request, and so is its upstream target. A table of 10,000 routes thus starts without
 * compiling 10,000 pipelines, and a route nobody calls never holds one. Reading a hook is a getter:
 * every reader gets the compiled pipeline, none can see a route without its policies.
 */
export class TableRoute implements CompiledRoute {
  private pipeline: CompiledPipeline | undefined = undefined;
  private target: UpstreamTarget | undefined = undefined;

  constructor(
    readonly route: Route,
    readonly pattern: CompiledPathPattern,
    /** Resolved when the route loads: an unreadable CA file fails the load, not a request. */
    readonly upstreamTls: UpstreamTls | undefined,
    readonly balanced: CompiledRoute['balanced'],
    private fingerprintOf: string | undefined,
    private readonly build: RouteBuild,
  ) {}

  /** What identifies the route's definition across reloads (see TableSource); undefined for a route loaded without one (start-up). */
  get fingerprint(): string | undefined {
    return this.fingerprintOf;
  }

  get id(): string {
    return this.route.id;
  }

  get upstream(): UpstreamTarget {
    return (this.target ??= this.build.pools.targetFor(this.route, this.upstreamTls));
  }

  /** The upstream's pool when the target was resolved (a request came); undefined otherwise. */
  get poolInUse(): UpstreamTarget['pool'] | undefined {
    return this.target?.pool;
  }

  get onRequest(): CompiledRoute['onRequest'] {
    return (this.pipeline ?? this.compile()).onRequest;
  }

  get onResponse(): CompiledRoute['onResponse'] {
    return (this.pipeline ?? this.compile()).onResponse;
  }

  get onComplete(): CompiledRoute['onComplete'] {
    return (this.pipeline ?? this.compile()).onComplete;
  }

  get responseHead(): CompiledRoute['responseHead'] {
    return (this.pipeline ?? this.compile()).responseHead;
  }

  get callUpstream(): CompiledRoute['callUpstream'] {
    return (this.pipeline ?? this.compile()).callUpstream;
  }

  get policies(): CompiledRoute['policies'] {
    return (this.pipeline ?? this.compile()).policies;
  }

  /** Whether the pipeline was compiled (a request came, or a hook was read). */
  get hasPipeline(): boolean {
    return this.pipeline !== undefined;
  }

  /**
   * Takes the fingerprint of its definition when it has none yet (loaded at start-up, which makes
   * none): the route stays the same object, as its definition did not change. Otherwise the first
   * reload after start made a new object of every route, which is an index change each, so it
   * rebuilt the whole route index (10,000 new TableRoutes and ~7 MB of index kept).
   */
  takeFirstFingerprint(fingerprint: string): void {
    this.fingerprintOf ??= fingerprint;
  }

  /** The same route under another fingerprint (a reload that found it unchanged), with what it compiled so far; itself when it had none (takeFirstFingerprint). */
  withFingerprint(fingerprint: string | undefined): TableRoute {
    if (this.fingerprintOf === undefined && fingerprint !== undefined) {
      this.takeFirstFingerprint(fingerprint);
      return this;
    }
    const copy = new TableRoute(this.route, this.pattern, this.upstreamTls, this.balanced, fingerprint, this.build);
    copy.pipeline = this.pipeline;
    copy.target = this.target;
    return copy;
  }

  /** The same route with another upstream TLS (its CA file was rotated or stopped loading): its pipeline kept, its target resolved again. */
  withUpstreamTls(upstreamTls: UpstreamTls | undefined): TableRoute {
    const copy = new TableRoute(this.route, this.pattern, upstreamTls, this.balanced, this.fingerprint, this.build);
    copy.pipeline = this.pipeline;
    return copy;
  }

  private compile(): CompiledPipeline {
    this.pipeline = this.build.pipelines.compile(this.route);
    return this.pipeline;
  }
}
