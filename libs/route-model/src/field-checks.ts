import type { Issue } from './field-spec';
import { ROUTE_MODEL_ERROR_CODES } from './error-codes';
import { checkHttpUrl, httpUrlMessage } from './http-url';
import { isManagementSecretVariable } from './management-secrets';
import { isValidRoutePath } from './path-format';
import { ROUTE_ID_PATTERN } from './route-id';

/** The format checks the schema tables refer to; each returns the complete message. */

export function routePathCheck(value: string): Issue | undefined {
  return isValidRoutePath(value) ? undefined : { message: 'Invalid path format', code: ROUTE_MODEL_ERROR_CODES.INVALID_PATH };
}

export function httpUrlCheck(value: string): Issue | undefined {
  const problem = checkHttpUrl(value);
  return problem === undefined ? undefined : { message: httpUrlMessage(problem), code: ROUTE_MODEL_ERROR_CODES.INVALID_URL };
}

export function routeIdCheck(value: string, label: string): Issue | undefined {
  return ROUTE_ID_PATTERN.test(value) ? undefined : { message: `${label} must be 1-64 letters, digits, '_' or '-'` };
}

/** Upstream and provider names: referenced from routes and used as metric labels. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function nameCheck(value: string, label: string): Issue | undefined {
  return NAME_PATTERN.test(value) ? undefined : { message: `${label} must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit` };
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

export function isoDateTimeCheck(value: string, label: string): Issue | undefined {
  return ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : { message: `${label} must be an ISO 8601 date-time` };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function envNameCheck(value: string, label: string): Issue | undefined {
  return ENV_NAME.test(value) ? undefined : { message: `${label} must be an environment variable name (letters, digits, '_')` };
}

/** A route's own secret: a valid name that is not one of the gateway's (MANAGEMENT_SECRET_VARIABLES). */
export function routeSecretEnvCheck(value: string, label: string): Issue | undefined {
  const invalid = envNameCheck(value, label);
  if (invalid !== undefined) return invalid;
  if (!isManagementSecretVariable(value)) return undefined;
  return {
    message: `${label} may not name ${value}: it is one of the gateway's own secrets (management tokens and route tokens would vouch for each other); give the route its own variable, e.g. ROUTE_JWT_SECRET`,
  };
}

/**
 * RFC 9110 5.1: a field name is a token (5.6.2 tchar). The one definition of a token: the data
 * plane's upstream client builds its character table from it (a regular expression per header is
 * too dear on its request path). Its source is published as the OpenAPI document's key pattern.
 */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The ASCII characters HEADER_NAME accepts: RFC 9110's tchar, for tables built from it. */
export const TOKEN_CHARACTERS = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code))
  .filter((character) => HEADER_NAME.test(character))
  .join('');

export function headerNameCheck(value: string, label: string): Issue | undefined {
  return HEADER_NAME.test(value) ? undefined : { message: `${label} is not a valid header name` };
}

/**
 * Printable ASCII, space and tab only. CR, LF and NUL would let a value split the header block
 * (response splitting); anything else outside that range node refuses when it writes the head
 * (or sends as Latin-1 bytes), so the route would fail on every request instead of at load.
 */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

export function headerValueCheck(value: string, label: string): Issue | undefined {
  return HEADER_VALUE.test(value) ? undefined : { message: `${label} may contain only printable ASCII, space and tab (no CR, LF or other control or non-ASCII characters)` };
}

/** Variables a header value may use (spec 2.1); the data plane compiles values into parts once per route. */
export const HEADER_TEMPLATE_VARIABLES = ['requestId', 'timestamp', 'clientIp', 'route', 'method', 'responseTime'] as const;
export type HeaderTemplateVariable = (typeof HEADER_TEMPLATE_VARIABLES)[number];

/** A header value with `${variable}` placeholders: no CR/LF/NUL, and only known variables. */
export function headerTemplateCheck(value: string, label: string): Issue | undefined {
  const plain = headerValueCheck(value, label);
  if (plain !== undefined) return plain;
  for (const match of value.matchAll(/\$\{([^}]*)\}?/g)) {
    const name = match[1] as string;
    if (!match[0].endsWith('}') || !(HEADER_TEMPLATE_VARIABLES as readonly string[]).includes(name)) {
      return { message: `${label} uses unknown variable '${match[0]}'; known: ${HEADER_TEMPLATE_VARIABLES.map((v) => '${' + v + '}').join(', ')}` };
    }
  }
  return undefined;
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** A semantic version (semver.org's regular expression) whose major is `supportedMajor`. */
export function semverCheck(supportedMajor: string): (value: string, label: string) => Issue | undefined {
  return (value, label) => {
    const match = SEMVER.exec(value);
    if (match === null) return { message: `${label} must be a semantic version such as 1.0.0` };
    if (match[1] !== supportedMajor) return { message: `${label} ${value} is not supported: this gateway reads configuration schema ${supportedMajor}.x` };
    return undefined;
  };
}

/** Trusted proxies: an IPv4 or IPv6 address, optionally with a CIDR prefix length. */
export function ipOrCidrCheck(value: string, label: string): Issue | undefined {
  return isIpOrCidr(value) ? undefined : { message: `${label} must be an IP address or CIDR range` };
}

/** The rule behind ipOrCidrCheck, for settings read outside the schema (the control plane's TRUSTED_PROXIES). */
export function isIpOrCidr(value: string): boolean {
  const slash = value.indexOf('/');
  const address = slash === -1 ? value : value.slice(0, slash);
  const bits = slash === -1 ? undefined : value.slice(slash + 1);
  const v4 = isIpv4(address);
  if (!v4 && !isIpv6(address)) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (v4 ? 32 : 128);
}

function isIpv4(value: string): boolean {
  const parts = value.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

function isIpv6(value: string): boolean {
  if (!/^[0-9A-Fa-f:.]+$/.test(value) || !value.includes(':')) return false;
  const doubleColons = value.split('::').length - 1;
  if (doubleColons > 1) return false;
  const groups = value.split(':').filter((g) => g !== '');
  const last = groups[groups.length - 1] ?? '';
  // An embedded IPv4 tail (::ffff:10.0.0.1) counts as two groups.
  const embeddedV4 = last.includes('.');
  if (embeddedV4 && !isIpv4(last)) return false;
  const hexGroups = embeddedV4 ? groups.slice(0, -1) : groups;
  if (!hexGroups.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  const count = hexGroups.length + (embeddedV4 ? 2 : 0);
  return doubleColons === 1 ? count < 8 : count === 8;
}
