import type { ServiceRegistry } from '../engine/service-registry';
import { HmacApiKeyVerifier, type ApiKeyVerifier } from './auth/api-key-verifier';
import { API_KEY_VERIFIER, JWT_VERIFIERS, SECRETS, SESSION_VALIDATORS } from './auth/auth-services';
import type { JwtVerifierFactory } from './auth/jwt-verifier';
import { SessionValidators } from './auth/session-validator';
import { RESPONSE_CACHE } from './cache/cache-services';
import { ResponseCache, type ResponseCacheOptions } from './cache/response-cache';

export interface EdgeServicesOptions {
  jwt: JwtVerifierFactory;
  env?: NodeJS.ProcessEnv;
  apiKeys?: ApiKeyVerifier;
  cache?: ResponseCacheOptions;
}

/** What the composition root keeps of the edge services (the control plane's cache purge and key feed). */
export interface EdgeServices {
  readonly responseCache: ResponseCache;
  readonly apiKeys: ApiKeyVerifier;
  close(): void;
}

/**
 * Provides the long-lived state and ports of the edge policies (cache, authentication) for one
 * data plane, as the keys their folders declare.
 */
export function provideEdgeServices(registry: ServiceRegistry, options: EdgeServicesOptions): EdgeServices {
  const environment = options.env ?? process.env;
  const sessions = new SessionValidators();
  const responseCache = new ResponseCache(options.cache);
  const apiKeys = options.apiKeys ?? new HmacApiKeyVerifier();
  registry
    .provide(RESPONSE_CACHE, responseCache)
    .provide(JWT_VERIFIERS, options.jwt)
    .provide(API_KEY_VERIFIER, apiKeys)
    .provide(SESSION_VALIDATORS, sessions)
    .provide(SECRETS, (name: string) => environment[name]);
  return { responseCache, apiKeys, close: () => sessions.close() };
}
