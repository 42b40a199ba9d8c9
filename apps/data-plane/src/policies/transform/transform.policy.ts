import type { Readable } from 'node:stream';
import { GatewayError } from '../../engine/error-catalogue';
import type { Exchange } from '../../engine/exchange';
import type { Policy, PolicyFactory, ProxiedResponse } from '../../engine/policy';
import type { Logger } from '../../engine/ports';
import { compileHeaderMap, renderTemplate } from '../headers/header-template';
import { compileExcludePaths, excludeFields, type ExcludePath } from './json-exclude';

/** `application/json`, `application/problem+json`, ... (RFC 6839 structured suffix). */
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export function isJsonContentType(value: unknown): boolean {
  return typeof value === 'string' && JSON_TYPE.test(value);
}

/** Splits a query string (no `?`) and drops the pairs whose decoded name is overridden. */
function keepPair(pair: string, overridden: ReadonlySet<string>): boolean {
  if (pair === '') return false;
  const eq = pair.indexOf('=');
  const raw = (eq === -1 ? pair : pair.slice(0, eq)).replace(/\+/g, ' ');
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    name = raw;
  }
  return !overridden.has(name);
}

export function applyQueryOverrides(upstreamPath: string, overridden: ReadonlySet<string>, encodedPairs: string): string {
  const q = upstreamPath.indexOf('?');
  if (q === -1) return `${upstreamPath}?${encodedPairs}`;
  const kept = upstreamPath.slice(q + 1).split('&').filter((pair) => keepPair(pair, overridden));
  kept.push(encodedPairs);
  return `${upstreamPath.slice(0, q)}?${kept.join('&')}`;
}

function readLimited(body: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        body.off('data', onData);
        body.destroy();
        reject(new TransformRefusal('too_large'));
        return;
      }
      chunks.push(chunk);
    };
    body.on('data', onData);
    body.once('end', () => resolve(Buffer.concat(chunks, size)));
    body.once('error', () => reject(new TransformRefusal('upstream_cut')));
    body.once('close', () => {
      if (!body.readableEnded) reject(new TransformRefusal('upstream_cut'));
    });
  });
}

class TransformRefusal extends Error {
  constructor(readonly reason: 'too_large' | 'invalid_json' | 'encoded' | 'upstream_cut') {
    super(reason);
  }
}

/**
 * Buffers a JSON response (bounded by `proxy.maxBodySize`), removes the excluded fields and fixes
 * Content-Length. Other content types stream untouched. A JSON body that is too large, encoded
 * (gzip ...) or not valid JSON fails closed with 502 RESPONSE_TRANSFORM_FAILED: `exclude` usually
 * hides data, and streaming it untouched would leak exactly what the route hides.
 */
async function transformBody(exchange: Exchange, response: ProxiedResponse, paths: readonly ExcludePath[], limit: number, logger: Logger): Promise<void> {
  if (!isJsonContentType(response.headers['content-type'])) return;
  if (exchange.method === 'HEAD' || response.status === 204 || response.status === 304) return;
  try {
    const encoding = response.headers['content-encoding'];
    if (encoding !== undefined && encoding !== 'identity') throw new TransformRefusal('encoded');
    const declared = response.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) throw new TransformRefusal('too_large');
    const raw = Buffer.isBuffer(response.body) ? response.body : await readLimited(response.body, limit);
    if (raw.length > limit) throw new TransformRefusal('too_large');
    if (raw.length === 0) {
      response.body = raw;
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new TransformRefusal('invalid_json');
    }
    excludeFields(parsed, paths);
    const out = Buffer.from(JSON.stringify(parsed), 'utf8');
    response.body = out;
    response.headers['content-length'] = out.length;
    // The representation changed: validators of the upstream's bytes no longer describe it.
    delete response.headers['etag'];
    delete response.headers['content-md5'];
  } catch (error) {
    if (!(error instanceof TransformRefusal)) throw error;
    if (!Buffer.isBuffer(response.body)) response.body.destroy();
    logger.warn({ correlationId: exchange.correlationId, routeId: exchange.route?.id, reason: error.reason, limit }, 'response body transform refused');
    throw new GatewayError('RESPONSE_TRANSFORM_FAILED');
  }
}

/**
 * `transform` (spec 2.1): `request.query` adds or overrides query parameters sent upstream;
 * `request.headers.remove` / `add` (added only when the client did not send it, as Kong's
 * request-transformer `add`); `response.body.exclude` removes JSON fields.
 */
export const transformPolicy: PolicyFactory = {
  key: 'transform',
  scope: 'route',
  configures: 'transform',
  order: 400,
  create: (route, env) => {
    const config = route?.transform;
    if (config === undefined) return null;
    const query = Object.entries(config.request?.query ?? {});
    const overridden = new Set(query.map(([name]) => name));
    const encodedPairs = query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
    const removeHeaders = (config.request?.headers?.remove ?? []).map((n) => n.toLowerCase());
    const addHeaders = compileHeaderMap(config.request?.headers?.add);
    const exclude = compileExcludePaths(config.response?.body?.exclude ?? []);
    const limit = env.settings.maxBodySize;
    const logger = env.services.logger;
    const changesRequest = query.length > 0 || removeHeaders.length > 0 || addHeaders.length > 0 || exclude.length > 0;
    if (!changesRequest) return null;

    const policy: Policy = {
      onRequest(exchange) {
        const headers = exchange.upstreamHeaders;
        for (let i = 0; i < removeHeaders.length; i += 1) delete headers[removeHeaders[i] as string];
        for (let i = 0; i < addHeaders.length; i += 1) {
          const [name, template] = addHeaders[i] as (typeof addHeaders)[number];
          if (headers[name] === undefined) headers[name] = renderTemplate(template, exchange);
        }
        // Only an unencoded body can have fields removed; ask the upstream for one.
        if (exclude.length > 0) delete headers['accept-encoding'];
        if (query.length > 0) exchange.upstreamPath = applyQueryOverrides(exchange.upstreamPath, overridden, encodedPairs);
        return undefined;
      },
    };
    if (exclude.length > 0) policy.onResponse = (exchange, response) => transformBody(exchange, response, exclude, limit, logger);
    return policy;
  },
};
