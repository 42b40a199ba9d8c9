import type { PolicyFactory } from '../../engine/policy';
import { VERSION_HEADERS } from '../../engine/version-headers';

/** Spec 9.2: X-API-Version and X-Config-Version on every response, proxied or local. */
export const versionHeadersPolicy: PolicyFactory = {
  key: 'version-headers',
  scope: 'gateway',
  order: 20,
  create: () => ({
    onRequest(exchange) {
      // Shares one frozen object until a policy adds its own header (addResponseHeader copies).
      exchange.responseHeaders = VERSION_HEADERS as Record<string, string>;
      return undefined;
    },
  }),
};
