import { randomBytes } from 'node:crypto';

/** The Redis of the test environment (shared: tests keep to their own REDIS_CHANNEL_PREFIX). */
export const TEST_REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** The shared secrets and names of one control plane and its data planes (fresh per run). */
export interface ClusterSecrets {
  readonly jwtSecret: string;
  readonly clusterToken: string;
  /** SETTINGS_ENCRYPTION_KEY, required in the control-plane role and the same on every control plane. */
  readonly settingsEncryptionKey: string;
  /** A unique REDIS_CHANNEL_PREFIX, so runs sharing one Redis never hear each other. */
  readonly channelPrefix: string;
  /** The first admin (ADMIN_EMAIL / ADMIN_PASSWORD), created by the control plane's first start. */
  readonly admin: { readonly email: string; readonly password: string };
}

export function clusterSecrets(label: string): ClusterSecrets {
  const random = (bytes: number): string => randomBytes(bytes).toString('hex');
  return {
    jwtSecret: random(32),
    clusterToken: random(24),
    settingsEncryptionKey: random(32),
    channelPrefix: `${label}:${process.pid}:${random(4)}:`,
    admin: { email: 'admin@example.com', password: `pw-${random(12)}` },
  };
}

/**
 * Decision 21's API limits (docs/auth-and-limits.md) raised far above what a test or benchmark
 * sends, for runs that are not about the limits.
 */
export const RAISED_API_LIMITS: Readonly<NodeJS.ProcessEnv> = {
  API_RATE_LIMIT_GENERAL_MAX: '1000000',
  API_RATE_LIMIT_ADMIN_MAX: '1000000',
  API_RATE_LIMIT_CREDENTIALS_MAX: '1000000',
};

/**
 * Environment of `gateway start --role control-plane` (apps/cli/src/gateway-roles.ts): SQLite in
 * its data dir (DATABASE_URL unset even if the caller's environment has one), the first admin,
 * Redis for change propagation (`undefined`: none, an in-process bus and in-memory API limit
 * counters), and raised API limits.
 */
export function controlPlaneEnv(secrets: ClusterSecrets, redisUrl: string | undefined): NodeJS.ProcessEnv {
  return {
    ...RAISED_API_LIMITS,
    DATABASE_URL: undefined,
    CONTROL_PLANE_URL: undefined,
    JWT_SECRET: secrets.jwtSecret,
    SETTINGS_ENCRYPTION_KEY: secrets.settingsEncryptionKey,
    CLUSTER_TOKEN: secrets.clusterToken,
    REDIS_URL: redisUrl,
    REDIS_CHANNEL_PREFIX: secrets.channelPrefix,
    ADMIN_EMAIL: secrets.admin.email,
    ADMIN_PASSWORD: secrets.admin.password,
  };
}

/** Environment of `gateway start --role data-plane` following that control plane over that Redis. */
export function dataPlaneEnv(secrets: ClusterSecrets, redisUrl: string, controlPlaneUrl: string): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: undefined,
    JWT_SECRET: undefined,
    ADMIN_EMAIL: undefined,
    ADMIN_PASSWORD: undefined,
    CONTROL_PLANE_URL: controlPlaneUrl,
    CLUSTER_TOKEN: secrets.clusterToken,
    REDIS_URL: redisUrl,
    REDIS_CHANNEL_PREFIX: secrets.channelPrefix,
  };
}

/** proxy.yml of a cluster member: no routes (routes come from the API), listening set by --port/--host. */
export const EMPTY_PROXY_CONFIG = 'version: "1.0.0"\nroutes: []\n';
