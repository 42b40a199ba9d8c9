import autocannon from 'autocannon';
import { cpuTicks, machineBusyTicks, stealTicksPerCore, ticksToSeconds } from './cpu';
import { percentileOfSorted, SampleBuffer } from './stats';

/** One request shape for the load generator (always against 127.0.0.1). */
export interface LoadRequest {
  readonly path: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /**
   * What changes from one request to the next (a distinct token, a distinct cache key): autocannon
   * then builds every request anew, which costs the load generator, not the measured processes.
   */
  readonly vary?: (sequence: number) => { readonly path?: string; readonly headers?: Record<string, string> };
  /**
   * The statuses a response may have to count as completed; default any 2xx. A scenario that
   * measures what refusals cost (404, 401, 429) names them here.
   */
  readonly expectStatuses?: readonly number[];
}

/** Whether a response of this status counts as a completed request of `request`. */
export function expectedStatus(request: LoadRequest, status: number): boolean {
  return request.expectStatuses === undefined ? status >= 200 && status < 300 : request.expectStatuses.includes(status);
}

/** autocannon's per-request hook for a request that varies; one sequence shared by every connection. */
function varyingRequests(vary: NonNullable<LoadRequest['vary']>): NonNullable<autocannon.Options['requests']> {
  let sequence = 0;
  return [
    {
      setupRequest: (raw) => {
        const next = vary(sequence++);
        return { ...raw, ...(next.path !== undefined ? { path: next.path } : {}), headers: { ...raw.headers, ...next.headers } };
      },
    },
  ];
}

export interface LoadSpec {
  readonly origin: string;
  readonly request: LoadRequest;
  readonly connections: number;
  /** Requests a second offered over all connections; undefined or 0: closed loop. */
  readonly overallRate?: number;
  readonly durationSeconds: number;
  /** Processes whose CPU time is read around the run, by label. */
  readonly observe?: Readonly<Record<string, number>>;
}

export interface LoadMeasurement {
  /** Responses of an expected status (2xx unless the request says otherwise) completed during the run. */
  readonly requests: number;
  /** Responses of any other status. */
  readonly unexpected: number;
  /** Responses by status code (a refusal flood answers 401, 429 and 503 in some mix). */
  readonly statuses: Readonly<Record<string, number>>;
  readonly wallSeconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly maxMs: number | undefined;
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
  /** CPU seconds of each observed process during the run. */
  readonly cpuSeconds: Record<string, number>;
  /** CPU seconds of this (load generator) process during the run. */
  readonly loadGeneratorCpuSeconds: number;
  /**
   * CPU seconds the rest of the machine used during the run: busy time from /proc/stat minus the
   * observed processes and the load generator (other people's builds and tests, steal).
   */
  readonly otherCpuSeconds: number;
  /** Steal seconds of each core during the run (index = core number, /proc/stat). */
  readonly stealSecondsPerCore: number[];
}

function assertLoopback(origin: string): void {
  const url = new URL(origin);
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to generate load against ${origin}: 127.0.0.1 only`);
}

/**
 * Runs autocannon (in this process) for the given duration and reads the CPU time of the observed
 * processes right before and right after. Latencies are recorded per response at full
 * resolution (autocannon's own histogram keeps whole milliseconds).
 */
export function runLoad(spec: LoadSpec): Promise<LoadMeasurement> {
  assertLoopback(spec.origin);
  const observe = Object.entries(spec.observe ?? {});
  const latencies = new SampleBuffer();
  let ok = 0;
  let unexpected = 0;
  const statuses: Record<string, number> = {};
  const before = observe.map(([, pid]) => cpuTicks(pid));
  const machineBefore = machineBusyTicks();
  const stealBefore = stealTicksPerCore();
  const ownBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  return new Promise<LoadMeasurement>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.origin + spec.request.path,
        connections: spec.connections,
        duration: spec.durationSeconds,
        pipelining: 1,
        ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
        timeout: 10,
        method: spec.request.method ?? 'GET',
        headers: spec.request.headers,
        body: spec.request.body,
        ...(spec.request.vary !== undefined ? { requests: varyingRequests(spec.request.vary) } : {}),
      },
      (error, result) => {
        const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
        const own = process.cpuUsage(ownBefore);
        if (error) {
          reject(error);
          return;
        }
        let cpuSeconds: Record<string, number>;
        let machineSeconds: number;
        let stealSecondsPerCore: number[];
        try {
          stealSecondsPerCore = stealTicksPerCore().map((t, core) => ticksToSeconds(t - (stealBefore[core] ?? 0)));
          const after = observe.map(([, pid]) => cpuTicks(pid));
          machineSeconds = ticksToSeconds(machineBusyTicks() - machineBefore);
          cpuSeconds = Object.fromEntries(observe.map(([label], i) => [label, ticksToSeconds((after[i] as number) - (before[i] as number))]));
        } catch (cpuError) {
          reject(cpuError instanceof Error ? cpuError : new Error(String(cpuError)));
          return;
        }
        const sorted = latencies.sorted();
        const loadGeneratorCpuSeconds = (own.user + own.system) / 1e6;
        const ours = Object.values(cpuSeconds).reduce((sum, v) => sum + v, loadGeneratorCpuSeconds);
        resolve({
          requests: ok,
          unexpected,
          statuses,
          wallSeconds,
          requestsPerSecond: ok / wallSeconds,
          p50Ms: percentileOfSorted(sorted, 50),
          p99Ms: percentileOfSorted(sorted, 99),
          maxMs: percentileOfSorted(sorted, 100),
          errors: result.errors,
          timeouts: result.timeouts,
          non2xx: result.non2xx,
          cpuSeconds,
          loadGeneratorCpuSeconds,
          otherCpuSeconds: Math.max(0, machineSeconds - ours),
          stealSecondsPerCore,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      if (expectedStatus(spec.request, statusCode)) {
        ok += 1;
        latencies.push(responseTimeMs);
      } else unexpected += 1;
    });
  });
}
