import type { CounterDefinition } from '../../engine/ports';
import { serviceKey } from '../../engine/service-registry';
import type { ApiKeyVerifier } from './api-key-verifier';
import type { JwtVerifierFactory } from './jwt-verifier';
import type { SessionValidators } from './session-validator';

/** Verifies JWTs (the jose adapter). */
export const JWT_VERIFIERS = serviceKey<JwtVerifierFactory>('auth.jwt');
/** Verifies API keys (HMAC digests fed by the control plane). */
export const API_KEY_VERIFIER = serviceKey<ApiKeyVerifier>('auth.apiKeys');
/** Session-service clients with their session caches (gateway authentication, spec 5.4). */
export const SESSION_VALIDATORS = serviceKey<SessionValidators>('auth.sessions');
/** Reads a secret the configuration names (an environment variable); never logged. */
export const SECRETS = serviceKey<(name: string) => string | undefined>('auth.secrets');

export const AUTH_FAILURES: CounterDefinition = {
  name: 'gateway_auth_failures_total',
  help: 'Requests refused by gateway authentication, by route id, scheme and reason',
  labelNames: ['route', 'scheme', 'reason'],
};
