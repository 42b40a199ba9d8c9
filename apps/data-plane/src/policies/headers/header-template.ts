import { performance } from 'node:perf_hooks';
import type { Exchange } from '../../engine/exchange';

/** Variable slots, numbered so a compiled part is either literal text (string) or a slot (number). */
const enum Slot {
  RequestId,
  Timestamp,
  ClientIp,
  Route,
  Method,
  ResponseTime,
}

const SLOTS: Record<string, Slot> = {
  requestId: Slot.RequestId,
  timestamp: Slot.Timestamp,
  clientIp: Slot.ClientIp,
  route: Slot.Route,
  method: Slot.Method,
  responseTime: Slot.ResponseTime,
};

/**
 * A configured header value compiled once per route into literal text and variable slots, so it
 * is never parsed per request. A value without variables stays a plain string (no work at all).
 * Unknown variables never get here: the route model refuses them when the route loads.
 */
export type CompiledTemplate = string | PartsTemplate;

/**
 * A template with variables. One whose only variable is `${route}` depends on nothing but the
 * route's id, so its last rendering is kept with that id (`lastId`): the bench's
 * `X-Served-By: gateway ${route}` was concatenated on every response though it never changes for a
 * route (~0.4k instructions a request under callgrind, docs/data-plane.md, branch h-rest100). The
 * id is the key, not the route object: policies are shared by routes with the same rules
 * (shareKey) and outlive reloads, and a kept id holds no route alive.
 */
interface PartsTemplate {
  readonly parts: ReadonlyArray<string | Slot>;
  readonly routeOnly: boolean;
  lastId: string | undefined;
  lastValue: string;
}

const PLACEHOLDER = /\$\{(requestId|timestamp|clientIp|route|method|responseTime)\}/g;

export function compileTemplate(value: string): CompiledTemplate {
  const parts: Array<string | Slot> = [];
  let last = 0;
  for (const match of value.matchAll(PLACEHOLDER)) {
    if (match.index > last) parts.push(value.slice(last, match.index));
    parts.push(SLOTS[match[1] as string] as Slot);
    last = match.index + match[0].length;
  }
  if (parts.length === 0) return value;
  if (last < value.length) parts.push(value.slice(last));
  const routeOnly = parts.every((part) => typeof part === 'string' || part === Slot.Route);
  return { parts, routeOnly, lastId: undefined, lastValue: '' };
}

/**
 * Only visible ASCII, space and tab survive in a variable's output: a value taken from the request
 * can never split the header block (CR/LF) or make node refuse the header.
 */
const UNSAFE = /[^\t\x20-\x7e]/;
const UNSAFE_ALL = /[^\t\x20-\x7e]/g;

/** Exported for its unit test. */
export function safe(value: string): string {
  return UNSAFE.test(value) ? value.replace(UNSAFE_ALL, '') : value;
}

/**
 * The request id and the client address are safe as they are, so they are not scanned on every
 * request (two regular-expression runs through V8's runtime, ~1.9k instructions a request under
 * callgrind on the policy set's route; docs/data-plane.md): the correlation id is either minted
 * (`req-<digits>-<hex>`) or a client's value that decision 17's rule accepted, whose characters
 * are all visible ASCII (the spec's test holds the two rules together); the client address is the
 * socket's peer address as node formats it (digits, hex, dots, colons). The method is a token
 * node's parser accepted; it is still scanned (rarely used, and cheap to keep strict).
 */
function slotValue(slot: Slot, exchange: Exchange): string {
  switch (slot) {
    case Slot.RequestId:
      return exchange.correlationId;
    case Slot.Timestamp:
      return new Date().toISOString();
    case Slot.ClientIp:
      return exchange.clientIp;
    case Slot.Route:
      return exchange.route === undefined ? '' : exchange.route.id;
    case Slot.Method:
      return safe(exchange.method);
    case Slot.ResponseTime:
      return String(Math.round(performance.now() - exchange.startedAt));
  }
}

export function renderTemplate(template: CompiledTemplate, exchange: Exchange): string {
  if (typeof template === 'string') return template;
  if (!template.routeOnly) return renderParts(template, exchange);
  const id = exchange.route === undefined ? undefined : exchange.route.id;
  if (id !== undefined && id === template.lastId) return template.lastValue;
  const value = renderParts(template, exchange);
  template.lastId = id;
  template.lastValue = value;
  return value;
}

function renderParts(template: PartsTemplate, exchange: Exchange): string {
  let out = '';
  const parts = template.parts;
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i] as string | Slot;
    out += typeof part === 'string' ? part : slotValue(part, exchange);
  }
  return out;
}

/** Header name (lower case) -> compiled value, from a configured map. */
export function compileHeaderMap(map: Record<string, string> | undefined): Array<[string, CompiledTemplate]> {
  return Object.entries(map ?? {}).map(([name, value]) => [name.toLowerCase(), compileTemplate(value)]);
}
