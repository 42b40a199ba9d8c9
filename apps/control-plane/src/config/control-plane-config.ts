import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { readRedisTlsCa } from '@gateway/events';
import { OUTBOUND_ALLOW_VARIABLE, parseCidrList, type Cidr } from '@gateway/outbound-target';
import { isIpOrCidr, MANAGEMENT_PATH_PREFIXES } from '@gateway/route-model';
import { parseThrottlingConfig, type ThrottlingConfig } from '../throttling/throttling-config';
import { parseCaDirs } from '@gateway/config-file';
import { parseLeasesConfig, type LeasesConfig } from './leases-config';
import { parseWebhooksConfig, type WebhooksConfig } from './webhooks-config';
import { ConfigError } from './config-error';
import { sameSecret, type PersistedSecret, type PersistedSecretName } from './secret-file';

export type DatabaseConfig =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Spec 8: the default is local development origins. */
export const DEFAULT_ALLOWED_ORIGINS: readonly string[] = [
  'http://localhost:3000',
  'http://localhost:5173',
  'http://localhost:8080',
  'http://127.0.0.1:3000',
  'http://127.0.0.1:5173',
  'http://127.0.0.1:8080',
];

/** HS256 keys shorter than the hash output weaken the MAC (RFC 7518 3.2). */
export const MIN_SECRET_LENGTH = 32;
export const MIN_CLUSTER_TOKEN_LENGTH = 16;
export const MIN_ADMIN_PASSWORD_LENGTH = 12;
/**
 * The longest management token lifetime settings may choose (7 days): what deleting a user
 * revokes for, so no token of theirs outlives the revocation.
 */
export const MAX_TOKEN_LIFETIME_SECONDS = 7 * 86_400;

/** The control plane's whole configuration, parsed once at boot. Nothing else reads process.env. */
export interface ControlPlaneConfig {
  dataDir: string;
  configPath: string;
  /** Gateway version for /version and logs. */
  version: string;
  /** True in the control-plane role (it listens); false in one-process mode. */
  standalone: boolean;
  /**
   * Route paths no route may take because this process serves them itself: the management
   * prefixes in one-process mode, none in the control-plane role (its data planes serve no /api).
   */
  reservedPathPrefixes: readonly string[];
  database: DatabaseConfig;
  redisUrl?: string;
  /** REDIS_TLS_CA_FILE's PEM: the trust for a rediss:// REDIS_URL (bus and throttler). */
  redisTlsCa?: string;
  /** Prefix of the bus channels (REDIS_CHANNEL_PREFIX): several gateways or test runs on one Redis. */
  channelPrefix: string;
  clusterToken?: string;
  /**
   * What the bus signs and verifies with (SignedBus, docs/control-plane.md "Bus authentication"):
   * CLUSTER_TOKEN; in one-process mode without it, one generated once into the data dir; in the
   * control-plane role without it, a random one for this process alone (no data plane can follow
   * it then anyway: the snapshot endpoint needs CLUSTER_TOKEN too).
   */
  bus: {
    clusterToken: string;
    /** CLUSTER_TOKEN_PREVIOUS: still accepted on received messages during a rotation. */
    previousClusterToken?: string;
    tokenSource: SecretSource | 'ephemeral';
  };
  auth: {
    jwtSecret: string;
    /** Where the secret came from, for the boot log (never the secret itself). */
    jwtSecretSource: SecretSource;
    issuer: string;
    tokenTtlSeconds: number;
  };
  /**
   * API_KEY_SECRET: the server key of HMAC-SHA256(server key, api key), the only form in which
   * keys are stored (decision 22). Unset only in the control-plane role: keys cannot be created.
   */
  apiKeys: {
    secret?: string;
    /** Where the secret came from, for the boot log (never the secret itself). */
    secretSource: SecretSource | 'unset';
  };
  /**
   * SETTINGS_ENCRYPTION_KEY: seals the secrets kept in settings (SecretBox, AES-256-GCM); required
   * in the control-plane role, generated into the data dir in one-process mode.
   */
  settingsEncryption: {
    key: string;
    /** Where the key came from, for the boot log (never the key itself). */
    keySource: SecretSource;
  };
  /** First admin, created on first start when no admin exists. */
  initialAdmin?: { email: string; password: string };
  allowedOrigins: string[];
  /** API_RATE_LIMIT_<TIER>_MAX / _WINDOW_SECONDS (docs/auth-and-limits.md). */
  throttling: ThrottlingConfig;
  /**
   * TRUSTED_PROXIES: peers (IPs or CIDRs) whose X-Forwarded-For names the client the management
   * API limits count by; empty: the socket peer is the client, X-Forwarded-For is ignored.
   */
  trustedProxies: readonly string[];
  /** WEBHOOK_RETRY_DELAYS, WEBHOOK_TIMEOUT, WEBHOOK_DISABLE_AFTER (docs/webhooks.md). */
  webhooks: WebhooksConfig;
  /** LEASE_TTL, ROUTE_PURGE_INTERVAL: run-once periodic jobs (docs/control-plane.md "Leases"). */
  leases: LeasesConfig;
  /**
   * OUTBOUND_ALLOW_CIDRS: exceptions to the outbound-target rule (docs/deployment.md), for route
   * tests and webhook targets alike (webhook-target.provider.ts).
   */
  outboundAllowCidrs: Cidr[];
  /**
   * GATEWAY_CA_DIRS: the directories an API upstream's `tls.caFile` may point into (default
   * /etc/gateway/ca). The security rule of CA files: nothing else is read through the API.
   */
  caDirs: readonly string[];
  logLevel: LogLevel;
}

type Problems = Array<{ variable: string; message: string }>;

export type SecretSource = 'env' | 'file' | 'generated';

function nonEmpty(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function parseUrl(value: string, protocols: readonly string[], variable: string, problems: Problems): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push({ variable, message: `is not a URL (expected ${protocols.map((p) => `${p}//...`).join(' or ')})` });
    return undefined;
  }
  if (!protocols.includes(url.protocol) || url.hostname === '') {
    problems.push({ variable, message: `must be a ${protocols.map((p) => `${p}//`).join(' or ')} URL with a host` });
    return undefined;
  }
  return value;
}

/** DATABASE_URL unset: SQLite in the data directory (the embedded default). */
export function parseDatabaseConfig(env: NodeJS.ProcessEnv, dataDir: string, problems: Problems): DatabaseConfig {
  const url = nonEmpty(env, 'DATABASE_URL');
  if (url === undefined) return { kind: 'sqlite', file: path.join(dataDir, 'gateway.sqlite') };
  const parsed = parseUrl(url, ['postgres:', 'postgresql:'], 'DATABASE_URL', problems);
  return { kind: 'postgres', url: parsed ?? url };
}

/** Reads only DATABASE_URL: what `gateway migrate` needs. */
export function loadDatabaseConfig(env: NodeJS.ProcessEnv, dataDir: string): DatabaseConfig {
  const problems: Problems = [];
  const database = parseDatabaseConfig(env, dataDir, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return database;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export interface ConfigInput {
  dataDir: string;
  configPath: string;
  version: string;
  standalone: boolean;
  env: NodeJS.ProcessEnv;
  /** One-process mode's fallback for JWT_SECRET, API_KEY_SECRET and the bus's CLUSTER_TOKEN (read or created in the data dir by the caller). */
  persistedSecret?: (name: PersistedSecretName) => PersistedSecret;
  /** What an earlier one-process start kept in the data dir, to refuse a silent switch to another secret. */
  storedSecret?: (name: PersistedSecretName) => { file: string; secret: string } | undefined;
}

/**
 * A secret variable: at least MIN_SECRET_LENGTH characters when set. Unset: one-process mode takes
 * the persisted one (generated once in the data dir); a separate control plane never invents one,
 * because several instances (and, for API keys, the data planes) must share it. A stored secret
 * below the minimum fails the start naming its file: it is neither used (a weak HMAC key) nor
 * replaced (which would silently invalidate every token or API key issued with it).
 */
function parseSecret(input: ConfigInput, variable: string, persisted: PersistedSecretName, problems: Problems): { secret?: string; source: SecretSource | 'unset' } {
  const secret = nonEmpty(input.env, variable);
  if (secret !== undefined) {
    if (secret.length < MIN_SECRET_LENGTH) problems.push({ variable, message: `must be at least ${MIN_SECRET_LENGTH} characters` });
    else if (!input.standalone) refuseSwitchFromStored(input, variable, persisted, secret, problems);
    return { secret, source: 'env' };
  }
  if (input.standalone || input.persistedSecret === undefined) return { source: 'unset' };
  return checkedPersistedSecret(input.persistedSecret, variable, persisted, problems);
}

/** A secret kept in the data dir; one below the minimum is reported, never used or replaced. */
function checkedPersistedSecret(
  persistedSecret: NonNullable<ConfigInput['persistedSecret']>,
  variable: string,
  persisted: PersistedSecretName,
  problems: Problems,
): { secret: string; source: 'file' | 'generated' } {
  const stored = persistedSecret(persisted);
  if (stored.secret.length < MIN_SECRET_LENGTH) {
    problems.push({
      variable,
      message:
        `the stored secret file ${stored.file} is shorter than the minimum of ${MIN_SECRET_LENGTH} characters; ` +
        `it is neither used nor replaced: set ${variable}, or remove the file to generate a new one (what was issued with the old one stops working)`,
    });
  }
  return { secret: stored.secret, source: stored.source };
}

function parseRedisTlsCa(file: string | undefined, redisUrl: string | undefined, problems: Problems): string | undefined {
  if (file === undefined) return undefined;
  try {
    return readRedisTlsCa(file, redisUrl);
  } catch (error) {
    problems.push({ variable: 'REDIS_TLS_CA_FILE', message: (error as Error).message.replace(/^REDIS_TLS_CA_FILE:? ?/, '') });
    return undefined;
  }
}

function busToken(input: ConfigInput, clusterToken: string | undefined, problems: Problems): { clusterToken: string; tokenSource: ControlPlaneConfig['bus']['tokenSource'] } {
  if (clusterToken !== undefined) return { clusterToken, tokenSource: 'env' };
  if (!input.standalone && input.persistedSecret !== undefined) {
    const persisted = checkedPersistedSecret(input.persistedSecret, 'CLUSTER_TOKEN', 'cluster', problems);
    return { clusterToken: persisted.secret, tokenSource: persisted.source };
  }
  return { clusterToken: randomBytes(32).toString('base64url'), tokenSource: 'ephemeral' };
}

/**
 * One-process mode with the variable set while an earlier start left a generated secret in the
 * data dir: a different value would silently invalidate what the stored one signed (API keys stop
 * matching their digests, sessions end), as with `init --force` before issue 11. Refused, with the
 * ways out; the stored file is never touched.
 */
function refuseSwitchFromStored(input: ConfigInput, variable: string, persisted: PersistedSecretName, secret: string, problems: Problems): void {
  const stored = input.storedSecret?.(persisted);
  if (stored === undefined || sameSecret(stored.secret, secret)) return;
  const loses =
    persisted === 'apiKey' ? 'API keys created before would stop working' : persisted === 'settings' ? 'secrets kept in settings could no longer be decrypted' : 'management sessions issued before would end';
  problems.push({
    variable,
    message: `differs from the secret an earlier start generated and kept in ${stored.file} (${loses}): set ${variable} to that file's content, unset it, or remove the file to switch on purpose`,
  });
}

/**
 * Parses and validates every variable, collecting all problems before failing so an operator
 * fixes the environment in one pass. Secrets never appear in the messages.
 */
export function parseControlPlaneConfig(input: ConfigInput): ControlPlaneConfig {
  const { env } = input;
  const problems: Problems = [];
  const database = parseDatabaseConfig(env, input.dataDir, problems);

  const redisRaw = nonEmpty(env, 'REDIS_URL');
  const redisUrl = redisRaw === undefined ? undefined : parseUrl(redisRaw, ['redis:', 'rediss:'], 'REDIS_URL', problems);

  const redisTlsCa = parseRedisTlsCa(nonEmpty(env, 'REDIS_TLS_CA_FILE'), redisUrl, problems);

  const channelPrefix = nonEmpty(env, 'REDIS_CHANNEL_PREFIX') ?? '';
  if (!/^[A-Za-z0-9:._-]{0,64}$/.test(channelPrefix)) {
    problems.push({ variable: 'REDIS_CHANNEL_PREFIX', message: 'may hold up to 64 letters, digits and : . _ -' });
  }

  const clusterToken = nonEmpty(env, 'CLUSTER_TOKEN');
  if (clusterToken !== undefined && clusterToken.length < MIN_CLUSTER_TOKEN_LENGTH) {
    problems.push({ variable: 'CLUSTER_TOKEN', message: `must be at least ${MIN_CLUSTER_TOKEN_LENGTH} characters` });
  }

  const previousClusterToken = nonEmpty(env, 'CLUSTER_TOKEN_PREVIOUS');
  if (previousClusterToken !== undefined && previousClusterToken.length < MIN_CLUSTER_TOKEN_LENGTH) {
    problems.push({ variable: 'CLUSTER_TOKEN_PREVIOUS', message: `must be at least ${MIN_CLUSTER_TOKEN_LENGTH} characters` });
  }
  const bus = busToken(input, clusterToken, problems);

  const jwt = parseSecret(input, 'JWT_SECRET', 'jwt', problems);
  if (jwt.source === 'unset') {
    problems.push({ variable: 'JWT_SECRET', message: `is required when the control plane runs on its own (at least ${MIN_SECRET_LENGTH} characters)` });
  }
  // Optional in the control-plane role: without it the gateway runs, only API keys cannot be created.
  const apiKey = parseSecret(input, 'API_KEY_SECRET', 'apiKey', problems);
  const settingsKey = parseSecret(input, 'SETTINGS_ENCRYPTION_KEY', 'settings', problems);
  if (settingsKey.source === 'unset') {
    problems.push({ variable: 'SETTINGS_ENCRYPTION_KEY', message: `is required when the control plane runs on its own (at least ${MIN_SECRET_LENGTH} characters, the same on every control plane)` });
  }

  const adminEmail = nonEmpty(env, 'ADMIN_EMAIL');
  const adminPassword = env['ADMIN_PASSWORD'] === '' ? undefined : env['ADMIN_PASSWORD'];
  let initialAdmin: ControlPlaneConfig['initialAdmin'];
  if (adminEmail !== undefined || adminPassword !== undefined) {
    if (adminEmail === undefined) problems.push({ variable: 'ADMIN_EMAIL', message: 'is required when ADMIN_PASSWORD is set' });
    else if (!EMAIL.test(adminEmail)) problems.push({ variable: 'ADMIN_EMAIL', message: 'is not an email address' });
    if (adminPassword === undefined) problems.push({ variable: 'ADMIN_PASSWORD', message: 'is required when ADMIN_EMAIL is set' });
    else if (adminPassword.length < MIN_ADMIN_PASSWORD_LENGTH) {
      problems.push({ variable: 'ADMIN_PASSWORD', message: `must be at least ${MIN_ADMIN_PASSWORD_LENGTH} characters` });
    }
    if (adminEmail !== undefined && adminPassword !== undefined) initialAdmin = { email: adminEmail.toLowerCase(), password: adminPassword };
  }

  const allowedOrigins = parseOrigins(nonEmpty(env, 'ALLOWED_ORIGINS'), problems);
  const throttling = parseThrottlingConfig(env, problems);
  const trustedProxies = parseTrustedProxies(nonEmpty(env, 'TRUSTED_PROXIES'), problems);
  const webhooks = parseWebhooksConfig(env, problems);
  const leases = parseLeasesConfig(env, problems);
  const caDirs = parseCaDirs(env, problems);
  const outbound = parseCidrList(nonEmpty(env, OUTBOUND_ALLOW_VARIABLE));
  if (!outbound.ok) problems.push({ variable: OUTBOUND_ALLOW_VARIABLE, message: outbound.message });

  const levelRaw = (nonEmpty(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  const logLevel = (LOG_LEVELS as readonly string[]).includes(levelRaw) ? (levelRaw as LogLevel) : undefined;
  if (logLevel === undefined) problems.push({ variable: 'LOG_LEVEL', message: `must be one of ${LOG_LEVELS.join(', ')}` });

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    dataDir: input.dataDir,
    configPath: input.configPath,
    version: input.version,
    standalone: input.standalone,
    reservedPathPrefixes: input.standalone ? [] : MANAGEMENT_PATH_PREFIXES,
    database,
    redisUrl,
    ...(redisTlsCa === undefined ? {} : { redisTlsCa }),
    channelPrefix,
    clusterToken,
    bus: { ...bus, ...(previousClusterToken === undefined ? {} : { previousClusterToken }) },
    auth: { jwtSecret: jwt.secret as string, jwtSecretSource: jwt.source as SecretSource, issuer: 'gateway', tokenTtlSeconds: 86_400 },
    apiKeys: { ...(apiKey.secret === undefined ? {} : { secret: apiKey.secret }), secretSource: apiKey.source },
    settingsEncryption: { key: settingsKey.secret as string, keySource: settingsKey.source as SecretSource },
    initialAdmin,
    allowedOrigins,
    throttling,
    trustedProxies,
    webhooks,
    leases,
    outboundAllowCidrs: outbound.ok ? outbound.cidrs : [],
    caDirs,
    logLevel: logLevel as LogLevel,
  };
}

/** Comma-separated IPs or CIDRs, by the rule of the data plane's proxy.trustedProxies. */
function parseTrustedProxies(raw: string | undefined, problems: Problems): string[] {
  if (raw === undefined) return [];
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const bad = entries.filter((entry) => !isIpOrCidr(entry));
  if (bad.length > 0) problems.push({ variable: 'TRUSTED_PROXIES', message: `must be a comma-separated list of IP addresses or CIDR ranges (not: ${bad.map((entry) => JSON.stringify(entry.slice(0, 64))).join(', ')})` });
  return [...new Set(entries)];
}

function parseOrigins(raw: string | undefined, problems: Problems): string[] {
  if (raw === undefined) return [...DEFAULT_ALLOWED_ORIGINS];
  const origins: string[] = [];
  for (const entry of raw.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry.replace(/\/$/, '')) {
      problems.push({ variable: 'ALLOWED_ORIGINS', message: `'${entry}' is not an origin (scheme://host[:port])` });
      continue;
    }
    origins.push(url.origin);
  }
  return origins;
}
