import type { SessionAuthenticationConfig } from './proxy-config.types';
import { appendKey } from './field-path';
import { AUTHENTICATION_SCHEMA, PROVIDER_BLOCK_KEYS } from './proxy-config.schema';
import { FAILED, isPlainObject, report, walkField, type WalkContext } from './schema-walker';

/**
 * Spec 2.6: provider fields may sit inline or in a block named by the provider
 * (`provider: acme` + `acme: { apiUrl }`). The block is merged inline; errors keep its path.
 */
export function readAuthentication(raw: unknown, ctx: WalkContext): SessionAuthenticationConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isPlainObject(raw)) {
    report(ctx, 'authentication', 'authentication must be an object');
    return undefined;
  }
  const working: Record<string, unknown> = { ...raw };
  const rename = new Map<string, string>();
  const provider = raw.provider;
  let blockPath: string | undefined;
  if (typeof provider === 'string' && !Object.hasOwn(AUTHENTICATION_SCHEMA.fields, provider) && Object.hasOwn(raw, provider)) {
    blockPath = appendKey('authentication', provider);
    mergeProviderBlock(raw[provider], raw, working, blockPath, rename, ctx);
    delete working[provider];
  }
  const walked = walkField(AUTHENTICATION_SCHEMA, working, 'authentication', 'authentication', { ...ctx, rename });
  if (walked === FAILED || !isPlainObject(walked)) return undefined;
  const auth = walked as Partial<SessionAuthenticationConfig>;
  if (auth.enabled && auth.provider !== undefined && auth.apiUrl === undefined && !Object.hasOwn(working, 'apiUrl')) {
    report(ctx, blockPath === undefined ? 'authentication.apiUrl' : appendKey(blockPath, 'apiUrl'), 'authentication.apiUrl is required when authentication.provider is set');
  }
  if (auth.fallbackAuth?.enabled && auth.fallbackAuth.methods?.length === 0) {
    report(ctx, rename.get('authentication.fallbackAuth') ?? 'authentication.fallbackAuth', 'authentication.fallbackAuth.methods must list basic and/or apiKey when fallbackAuth is enabled');
  }
  return auth as SessionAuthenticationConfig;
}

function mergeProviderBlock(
  block: unknown,
  raw: Record<string, unknown>,
  working: Record<string, unknown>,
  blockPath: string,
  rename: Map<string, string>,
  ctx: WalkContext,
): void {
  if (!isPlainObject(block)) {
    report(ctx, blockPath, `${blockPath} must be an object`);
    return;
  }
  for (const key of Object.keys(block)) {
    const at = appendKey(blockPath, key);
    if (!PROVIDER_BLOCK_KEYS.includes(key)) report(ctx, at, 'Unknown field');
    else if (Object.hasOwn(raw, key)) report(ctx, at, `${at} is also given as authentication.${key}; give it once`);
    else {
      working[key] = block[key];
      rename.set(appendKey('authentication', key), at);
    }
  }
}
