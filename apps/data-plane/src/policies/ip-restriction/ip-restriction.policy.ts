import { compileAddressSet } from '@gateway/client-address';
import { compileExchangeClientAddress } from '../../engine/exchange-client-address';
import type { LocalReply, PolicyFactory } from '../../engine/policy';

const REFUSED: LocalReply = Object.freeze({ kind: 'error', code: 'FORBIDDEN' }) as LocalReply;

/**
 * `ipRestriction` (docs/access-rules.md): the client address, read through `proxy.trustedProxies`
 * like the rate limiter's, is refused with the spec 7.3 403 when it is in `deny`, or when an
 * `allow` list exists and it is not in it (deny wins). Runs before every other route policy, so
 * a refused address costs no body read, no credential check and no rate-limit count. The lists
 * are compiled into BlockLists when the route loads.
 */
export const ipRestrictionPolicy: PolicyFactory = {
  key: 'ip-restriction',
  scope: 'route',
  configures: 'ipRestriction',
  order: 40,
  create: (route, env) => {
    const config = route?.ipRestriction;
    if (route === undefined || config === undefined || !config.enabled) return null;
    const clientAddress = compileExchangeClientAddress(env.settings.trustedProxies);
    const allow = config.allow !== undefined && config.allow.length > 0 ? compileAddressSet(config.allow) : undefined;
    const deny = config.deny !== undefined && config.deny.length > 0 ? compileAddressSet(config.deny) : undefined;
    return {
      onRequest(exchange) {
        const address = clientAddress(exchange);
        if (deny !== undefined && deny(address)) return REFUSED;
        if (allow !== undefined && !allow(address)) return REFUSED;
        return undefined;
      },
    };
  },
};
