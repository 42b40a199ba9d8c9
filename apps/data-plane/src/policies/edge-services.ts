import type { EdgeServices } from '../engine/ports';
import { HmacApiKeyVerifier, type ApiKeyVerifier } from './auth/api-key-verifier';
import type { JwtVerifierFactory } from './auth/jwt-verifier';
import { SessionValidators } from './auth/session-validator';
import { ResponseCache, type ResponseCacheOptions } from './cache/response-cache';

export interface EdgeServicesOptions {
  jwt: JwtVerifierFactory;
  env?: NodeJS.ProcessEnv;
  apiKeys?: ApiKeyVerifier;
  cache?: ResponseCacheOptions;
}

/** The long-lived state and ports of the edge policies (cache, authentication) for one data plane. */
export function createEdgeServices(options: EdgeServicesOptions): EdgeServices & { close(): void } {
  const environment = options.env ?? process.env;
  const sessions = new SessionValidators();
  return {
    responseCache: new ResponseCache(options.cache),
    jwt: options.jwt,
    apiKeys: options.apiKeys ?? new HmacApiKeyVerifier(),
    sessions,
    secret: (name) => environment[name],
    close: () => sessions.close(),
  };
}
