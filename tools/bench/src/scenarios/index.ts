import type { Scenario } from '../harness/types';
import { apiThroughputScenario } from './api-throughput';
import { policiesScenario } from './policies';
import { edgeCacheScenario, edgeJwtScenario } from './edge';
import { propagationScenario } from './propagation';
import { proxyScenario } from './proxy';
import { proxyPoliciesScenario } from './proxy-policies';
import { proxyPoliciesInstructionsScenario } from './proxy-policies-instructions';
import { refusalsScenario } from './refusals';
import { reloadScenario } from './reload';
import { scaleScenario } from './scale';
import { scrapeScenario } from './scrape';
import { scrapeFirstScenario } from './scrape-first';
import { startScenario } from './start';
import { telemetryScenario } from './telemetry';
import { upstreamClientScenario } from './upstream-client';
import { telemetryInstructionsScenario } from './telemetry-instructions';
import { tracingScenario } from './tracing';
import { tracingCostInstructionsScenario, tracingInstructionsScenario, tracingOffInstructionsScenario, tracingUnmatchedInstructionsScenario } from './tracing-instructions';

/**
 * Every scenario, in run order. A new scenario is one file in this folder (see proxy.ts and
 * harness/comparison.ts) plus one line here.
 */

export const SCENARIOS: readonly Scenario[] = [proxyScenario, proxyPoliciesScenario, proxyPoliciesInstructionsScenario, upstreamClientScenario, policiesScenario, edgeCacheScenario, edgeJwtScenario, refusalsScenario, telemetryScenario, telemetryInstructionsScenario, propagationScenario, apiThroughputScenario, reloadScenario, scaleScenario, startScenario, scrapeScenario, scrapeFirstScenario, tracingScenario, tracingInstructionsScenario, tracingOffInstructionsScenario, tracingCostInstructionsScenario, tracingUnmatchedInstructionsScenario];
