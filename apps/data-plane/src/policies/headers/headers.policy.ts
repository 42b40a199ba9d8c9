import type { OutgoingHttpHeaders } from 'node:http';
import type { Exchange } from '../../engine/exchange';
import type { Policy, PolicyFactory, ResponseHeadRules } from '../../engine/policy';
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
 * The response rules declared for the raw head (ResponseHeadRules): every name they remove or set
 * leaves the upstream's fields of that name out, and each set name appears once with its last
 * configured value, as the map applyRules changes ends up.
 */
function headRulesOf(rules: CompiledRules): ResponseHeadRules {
  const values = new Map<string, CompiledTemplate>();
  for (const [name, template] of rules.set) values.set(name, template);
  const names = new Set([...rules.remove, ...values.keys()]);
  let lengths = 0;
  for (const name of names) lengths |= 1 << (name.length & 31);
  const set = [...values].map(([name, template]) => [name, (exchange: Exchange) => renderTemplate(template, exchange)] as const);
  return { names, lengths, set };
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
    if (response === undefined) return policy;
    // The map form for replayed responses and routes with other response hooks; the raw-head form
    // when this is the route's only response work (the dispatcher chooses).
    return { ...policy, onResponse: (exchange, proxied) => applyRules(response, proxied.headers, exchange), responseHead: headRulesOf(response) };
  },
};
