import { OutboundAddressRule } from '@gateway/outbound-target';
import { joseJwtVerifierFactory } from '../adapters/jose-jwt-verifier.adapter';
import { PromMetrics } from '../adapters/prom-metrics.adapter';
import { RESILIENCE_EVENTS } from '../policies/circuit-breaker/breaker-events';
import { provideEdgeServices } from '../policies/edge-services';
import { MemoryRateLimitStore } from '../policies/rate-limit/memory-rate-limit.store';
import { RATE_LIMIT_STORE } from '../policies/rate-limit/rate-limit-store';
import type { TelemetryRegistry } from '../policies/telemetry/telemetry-registry';
import { TELEMETRY_TALLIES } from '../policies/telemetry/telemetry-services';
import type { DeadlineWheel } from '../engine/deadline-wheel';
import type { Exchange } from '../engine/exchange';
import { PolicyState } from '../engine/policy-state';
import type { EngineServices, Logger } from '../engine/ports';
import { ServiceRegistry } from '../engine/service-registry';
import type { UpstreamHealthRegistry } from '../engine/upstream-health-registry';

/**
 * The engine services a unit test of the reload/apply path needs, wired the way start() wires
 * them (memory rate-limit store, policy state, edge services). `close` releases their timers.
 */
export function createTestServices(
  parts: { logger: Logger; health: UpstreamHealthRegistry; deadlines: DeadlineWheel<Exchange> },
  /** Telemetry tallies, provided as start() provides them when the data plane publishes telemetry. */
  telemetry?: TelemetryRegistry,
): {
  services: EngineServices;
  close(): void;
} {
  const state = new PolicyState();
  const rateLimitStore = new MemoryRateLimitStore();
  const provided = new ServiceRegistry().provide(RATE_LIMIT_STORE, rateLimitStore).provide(RESILIENCE_EVENTS, { breakerOpened: () => undefined });
  const edge = provideEdgeServices(provided, { jwt: joseJwtVerifierFactory });
  if (telemetry !== undefined) provided.provide(TELEMETRY_TALLIES, telemetry);
  const services: EngineServices = {
    ...parts,
    metrics: new PromMetrics(),
    state,
    provided,
    version: '0.0.0-test',
    startedAt: Date.now(),
    outbound: new OutboundAddressRule(),
  };
  state.attach(services);
  return {
    services,
    close: () => {
      parts.deadlines.close();
      edge.close();
      void state.close();
      void rateLimitStore.close();
    },
  };
}
