/* eslint-disable @typescript-eslint/no-require-imports -- prom-client's own files, not its index (below) */
import type * as PromClient from 'prom-client';

/**
 * prom-client's Counter, Gauge and Registry, required from their own files. Its index also loads
 * the push gateway, the summary (with tdigest), the cluster aggregator and, through the default
 * metrics' process CPU counter, `@opentelemetry/api` (44 modules, for exemplars the gateway never
 * turns on): 81 modules, ~65 ms of every data plane's start-up CPU for ~20 it uses
 * (docs/data-plane.md, "Start-up at 10,000 routes, third pass"). The types are the index's; the
 * package has no `exports` map, so these paths are public to Node. `process-metrics.spec.ts`
 * fails if a release moves them or changes what the default metrics register.
 */
export const Counter = require('prom-client/lib/counter') as typeof PromClient.Counter;
export type Counter<T extends string = string> = PromClient.Counter<T>;
export const Gauge = require('prom-client/lib/gauge') as typeof PromClient.Gauge;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export const Registry = require('prom-client/lib/registry') as typeof PromClient.Registry;
export type Registry = PromClient.Registry;
