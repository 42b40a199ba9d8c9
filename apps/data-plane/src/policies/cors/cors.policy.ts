import type { OutgoingHttpHeaders } from 'node:http';
import { compileCorsOrigins, HTTP_METHODS, type CorsConfig, type Route } from '@gateway/route-model';
import type { Exchange } from '../../engine/exchange';
import type { LocalReply, PolicyFactory, RequestHookResult } from '../../engine/policy';
import { dropUpstreamCorsHeaders, echoableHeaderList, withVaryToken } from './cors-headers';

const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
const NOT_ALLOWED: LocalReply = Object.freeze({ kind: 'error', code: 'METHOD_NOT_ALLOWED' }) as LocalReply;

/** Everything a route's CORS answers need, computed when the route loads. */
interface CompiledCors {
  readonly allowed: (origin: string) => boolean;
  /** Access-Control-Allow-Origin is `*` (any origin, no credentials): the same headers for every caller. */
  readonly wildcard: boolean;
  readonly credentials: boolean;
  readonly methods: string;
  readonly headers: string | undefined;
  readonly exposed: string | undefined;
  readonly maxAge: string | undefined;
  /** The route itself serves OPTIONS (a plain OPTIONS request goes upstream). */
  readonly routeServesOptions: boolean;
}

function compile(route: Route, config: CorsConfig): CompiledCors {
  const list = (values: readonly string[] | undefined): string | undefined => (values === undefined || values.length === 0 ? undefined : values.join(', '));
  return {
    allowed: compileCorsOrigins(config.origins),
    wildcard: config.origins.includes('*') && !config.credentials,
    credentials: config.credentials,
    methods: (config.methods ?? route.methods ?? HTTP_METHODS).join(', '),
    headers: list(config.headers),
    exposed: list(config.exposedHeaders),
    maxAge: config.maxAge === undefined ? undefined : String(config.maxAge),
    routeServesOptions: route.methods === undefined || route.methods.includes('OPTIONS'),
  };
}

/** The headers every answer to an allowed origin carries (a preflight adds its own). */
function actualHeaders(cors: CompiledCors, origin: string): Record<string, string> {
  const headers: Record<string, string> = { 'access-control-allow-origin': cors.wildcard ? '*' : origin, vary: 'Origin' };
  if (cors.credentials) headers['access-control-allow-credentials'] = 'true';
  if (cors.exposed !== undefined) headers['access-control-expose-headers'] = cors.exposed;
  return headers;
}

function preflight(cors: CompiledCors, exchange: Exchange, origin: string): LocalReply {
  const headers: OutgoingHttpHeaders = { vary: PREFLIGHT_VARY, 'content-length': 0 };
  // A disallowed origin still gets its answer from the gateway, without any Allow header: the
  // browser then refuses the real request, and the upstream never sees the preflight.
  if (cors.allowed(origin)) {
    headers['access-control-allow-origin'] = cors.wildcard ? '*' : origin;
    headers['access-control-allow-methods'] = cors.methods;
    const allowHeaders = cors.headers ?? echoableHeaderList(exchange.req.headers['access-control-request-headers']);
    if (allowHeaders !== undefined) headers['access-control-allow-headers'] = allowHeaders;
    if (cors.credentials) headers['access-control-allow-credentials'] = 'true';
    if (cors.maxAge !== undefined) headers['access-control-max-age'] = cors.maxAge;
  }
  return { kind: 'response', status: 204, headers };
}

/**
 * `cors` (docs/access-rules.md): the gateway answers CORS for the route. A preflight (OPTIONS with
 * Origin and Access-Control-Request-Method) is answered here with 204 and never reaches the
 * upstream; other requests from an allowed origin get Access-Control-Allow-Origin (and
 * credentials, exposed headers) on whatever answers them, gateway errors included, and every
 * response says `Vary: Origin`. The upstream's own CORS headers are replaced. Runs after the IP
 * rules and before authentication: a browser sends no credentials on a preflight.
 */
export const corsPolicy: PolicyFactory = {
  key: 'cors',
  scope: 'route',
  configures: 'cors',
  order: 90,
  create: (route, _env) => {
    const config = route?.cors;
    if (route === undefined || config === undefined || !config.enabled) return null;
    const cors = compile(route, config);
    const anyOrigin = Object.freeze(actualHeaders(cors, '*'));
    const varyOnly = Object.freeze({ vary: 'Origin' });
    const addHeaders = (exchange: Exchange, headers: Readonly<Record<string, string>>): void => {
      exchange.responseHeaders = exchange.responseHeaders === undefined ? headers : { ...exchange.responseHeaders, ...headers };
    };
    return {
      onRequest(exchange): RequestHookResult {
        const origin = exchange.req.headers.origin;
        if (exchange.method === 'OPTIONS') {
          if (origin !== undefined && exchange.req.headers['access-control-request-method'] !== undefined) return preflight(cors, exchange, origin);
          // The route matched OPTIONS only because CORS is on (routeMethodMask): not a method it serves.
          if (!cors.routeServesOptions) return NOT_ALLOWED;
        }
        if (origin === undefined || !cors.allowed(origin)) addHeaders(exchange, varyOnly);
        else addHeaders(exchange, cors.wildcard ? anyOrigin : actualHeaders(cors, origin));
        return undefined;
      },
      onResponse(exchange, response) {
        dropUpstreamCorsHeaders(response.headers);
        // The exchange's headers are written over the upstream's: keep the upstream's Vary tokens.
        if (response.headers.vary !== undefined) exchange.addResponseHeader('vary', withVaryToken(response.headers.vary, 'Origin'));
      },
    };
  },
};
