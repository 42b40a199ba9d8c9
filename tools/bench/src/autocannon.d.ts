// The slice of autocannon's programmatic API the harness uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      pipelining?: number;
      /** Requests a second over all connections (open loop); unlimited when absent. */
      overallRate?: number;
      /** Seconds before a request counts as timed out. */
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Each connection loops over these; setupRequest may rewrite every request it sends. */
      requests?: Array<{ setupRequest?: (request: RawRequest, context: object) => RawRequest }>;
    }

    interface RawRequest {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }

    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total?: number;
      p50: number;
      p90: number;
      p99: number;
    }

    interface Result {
      /** Seconds. */
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      resets: number;
      mismatches: number;
      latency: Histogram;
      requests: Histogram & { total: number; sent: number };
      throughput: Histogram;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter {
      stop(): void;
      on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): this;
      on(event: string, listener: (...args: unknown[]) => void): this;
    }
  }

  function autocannon(options: autocannon.Options, callback: (error: Error | null, result: autocannon.Result) => void): autocannon.Instance;

  export = autocannon;
}
