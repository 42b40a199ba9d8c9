/**
 * What a data plane's engine uses of this library at run time, from files that import nothing
 * heavier than `node:crypto`: `@gateway/events/data-plane`. The index also loads the buses, the
 * signing, the Redis connection and the detectors (35 modules), none of which a data plane on a
 * proxy.yml runs; a follower loads them when it joins (docs/data-plane.md, "Start-up at 10,000
 * routes, third pass"). Types come from the index as before (they cost nothing at run time).
 */
export { apiKeyDigest, apiKeySecretFingerprint } from './api-key-digest';
export { BUS_DROPS_METRIC } from './bus-drop-counter';
export { LOG_LINE_LEVELS } from './log-line.types';
export { REQUEST_OUTCOMES } from './telemetry/telemetry-window.types';
export { LatencySketch, latencyBucket } from './telemetry/latency-sketch';
export { TopKeys } from './telemetry/top-keys';
