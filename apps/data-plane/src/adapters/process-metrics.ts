/* eslint-disable @typescript-eslint/no-require-imports -- prom-client's own metric files (prom-client-classes.ts says why) */
import { Counter, type Registry } from './prom-client-classes';

type DefaultMetric = (registry: Registry, config: { readonly eventLoopMonitoringPrecision: number }) => void;

/**
 * prom-client's default metrics after the process CPU counters, in `collectDefaultMetrics`'s
 * order (so /metrics lists them as before). processResources exists only where Node has
 * `process.getActiveResourcesInfo`, as in prom-client.
 */
function defaultMetricsButCpu(): DefaultMetric[] {
  return [
    require('prom-client/lib/metrics/processStartTime') as DefaultMetric,
    require('prom-client/lib/metrics/osMemoryHeap') as DefaultMetric,
    require('prom-client/lib/metrics/processOpenFileDescriptors') as DefaultMetric,
    require('prom-client/lib/metrics/processMaxFileDescriptors') as DefaultMetric,
    require('prom-client/lib/metrics/eventLoopLag') as DefaultMetric,
    ...(typeof process.getActiveResourcesInfo === 'function' ? [require('prom-client/lib/metrics/processResources') as DefaultMetric] : []),
    require('prom-client/lib/metrics/processHandles') as DefaultMetric,
    require('prom-client/lib/metrics/processRequests') as DefaultMetric,
    require('prom-client/lib/metrics/heapSizeAndUsed') as DefaultMetric,
    require('prom-client/lib/metrics/heapSpacesSizeAndUsed') as DefaultMetric,
    require('prom-client/lib/metrics/version') as DefaultMetric,
    require('prom-client/lib/metrics/gc') as DefaultMetric,
  ];
}

/**
 * The three process CPU counters prom-client's `processCpuTotal` registers, with its names and
 * help, without the module: it requires `@opentelemetry/api` at its top for exemplars, which the
 * gateway does not enable. Counted from the process's start (`process.cpuUsage()` is cumulative),
 * where prom-client counted from the registry's creation: the CPU of start-up is the process's too.
 */
function processCpuCounters(registry: Registry): void {
  let last = { user: 0, system: 0 };
  const registers = [registry];
  const user: Counter = new Counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
    registers,
    // One collect sets all three, as in prom-client.
    collect() {
      const now = process.cpuUsage();
      const userMicros = now.user - last.user;
      const systemMicros = now.system - last.system;
      last = now;
      user.inc(userMicros / 1e6);
      system.inc(systemMicros / 1e6);
      total.inc((userMicros + systemMicros) / 1e6);
    },
  });
  const system = new Counter({ name: 'process_cpu_system_seconds_total', help: 'Total system CPU time spent in seconds.', registers });
  const total = new Counter({ name: 'process_cpu_seconds_total', help: 'Total user and system CPU time spent in seconds.', registers });
}

/** What prom-client's `collectDefaultMetrics({ register: registry })` registers, in its order. */
export function registerProcessMetrics(registry: Registry): void {
  processCpuCounters(registry);
  const config = { eventLoopMonitoringPrecision: 10 };
  for (const metric of defaultMetricsButCpu()) metric(registry, config);
}
