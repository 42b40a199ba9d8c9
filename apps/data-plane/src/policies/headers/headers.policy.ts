import type { OutgoingHttpHeaders } from 'node:http';
import type { Exchange } from '../../engine/exchange';
import type { Policy, PolicyFactory } from '../../engine/policy';
import { compileHeaderMap, renderTemplate, type CompiledTemplate } from './header-template';

interface CompiledRules {
  set: Array<[string, CompiledTemplate]>;
  remove: string[];
}

function applyRules(rules: CompiledRules, headers: OutgoingHttpHeaders, exchange: Exchange): void {
  for (let i = 0; i < rules.remove.length; i += 1) delete headers[rules.remove[i] as string];
  for (let i = 0; i < rules.set.length; i += 1) {
    const [name, template] = rules.set[i] as [string, CompiledTemplate];
    headers[name] = renderTemplate(template, exchange);
  }
}

/**
 * `headers.request` / `headers.response` (spec 2.1): remove, then set, on the upstream request and
 * on the response (proxied responses and cache hits; not on errors the gateway answers itself).
 * Values are compiled into parts when the route loads.
 */
export const headersPolicy: PolicyFactory = {
  key: 'headers',
  scope: 'route',
  configures: 'headers',
  order: 300,
  // `${route}` is read from the exchange when a header is written: nothing else of a route is kept.
  shareKey: (route) => JSON.stringify(route.headers ?? null),
  create: (route) => {
    const config = route?.headers;
    if (config === undefined) return null;
    const compile = (side: typeof config.request): CompiledRules | undefined => {
      if (side === undefined || ((side.set === undefined || Object.keys(side.set).length === 0) && (side.remove ?? []).length === 0)) return undefined;
      return { set: compileHeaderMap(side.set), remove: (side.remove ?? []).map((n) => n.toLowerCase()) };
    };
    const request = compile(config.request);
    const response = compile(config.response);
    if (request === undefined && response === undefined) return null;
    const policy: Policy = {};
    if (request !== undefined) {
      policy.onRequest = (exchange) => {
        applyRules(request, exchange.upstreamHeaders, exchange);
        return undefined;
      };
    }
    if (response !== undefined) policy.onResponse = (exchange, proxied) => applyRules(response, proxied.headers, exchange);
    return policy;
  },
};
