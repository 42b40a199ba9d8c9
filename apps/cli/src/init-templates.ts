import { randomBytes } from 'node:crypto';

/**
 * What `gateway init` writes. It uses only what this version of the data plane enforces (the
 * loader refuses blocks it would ignore, such as rateLimit or circuitBreaker) and must stay valid:
 * test/cli/init.e2e.ts runs `config:validate` on it.
 */
export const EXAMPLE_PROXY_YML = `# Gateway configuration, written by \`gateway init\`.
#   gateway config:validate           check this file (every error, with its line)
#   gateway start                     serve it (reads .env from this directory)
#   gateway config:reload [--dry-run] apply edits to the running gateway without a restart
# Secrets never go in this file: they live in .env.
version: "1.0.0"

proxy:
  # 127.0.0.1 takes local connections only; 0.0.0.0 listens on every interface.
  host: 127.0.0.1
  port: 8080
  # Larger request bodies are refused with 413.
  maxBodySize: 10mb

# Backends, referred to by name from routes.
upstreams:
  - name: users-service
    url: http://127.0.0.1:3001/users

  - name: orders-service
    url: http://127.0.0.1:3002/orders

# Paths: "/prefix/*" matches everything under the prefix, "/exact/path" only itself, and
# "/shop/*/items" one segment in place of the star. The literal prefix is replaced by the
# upstream URL's path: /shop/users/42 goes to http://127.0.0.1:3001/users/42.
# /api, /admin and /internal belong to the management API when both planes share a port.
routes:
  - path: /shop/users/*
    upstream: users-service

  - path: /shop/orders/*
    upstream: orders-service
    methods: [GET, POST]
    # Per upstream attempt: 504 when the upstream does not answer in time.
    timeout:
      connect: 2000
      request: 10000

  # An exact path straight to a URL, without a named upstream.
  - path: /status
    upstream: http://127.0.0.1:3001/health
    methods: [GET]
`;

/** Secrets init generates: 32 random bytes each, base64url. */
export const GENERATED_SECRETS = ['JWT_SECRET', 'CLUSTER_TOKEN', 'API_KEY_SECRET', 'SETTINGS_ENCRYPTION_KEY'] as const;
export type GeneratedSecretName = (typeof GENERATED_SECRETS)[number];
/** The control plane's MIN_SECRET_LENGTH: a shorter stored secret is not carried into .env. */
export const MIN_GENERATED_SECRET_LENGTH = 32;
/** Settings init cannot guess: written commented out. */
export const PLACEHOLDERS = ['ADMIN_EMAIL', 'DATABASE_URL', 'REDIS_URL', 'ALLOWED_ORIGINS'] as const;

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function renderDotEnv(secret: (name: GeneratedSecretName) => string = newSecret): string {
  return `# Gateway secrets and settings, written by \`gateway init\`. Keep this file out of version
# control (it is created with mode 0600). \`gateway start\` loads it from the working directory;
# a variable already set in the environment wins over this file.

# Signs and verifies the management API's session tokens, and nothing else.
JWT_SECRET=${secret('JWT_SECRET')}
# Shared token that gateway instances of one cluster present to each other.
CLUSTER_TOKEN=${secret('CLUSTER_TOKEN')}
# Key for deriving and checking API keys.
API_KEY_SECRET=${secret('API_KEY_SECRET')}
# Encrypts the secrets kept in settings; the same on every control plane (docs/settings.md).
SETTINGS_ENCRYPTION_KEY=${secret('SETTINGS_ENCRYPTION_KEY')}

# Fill these in for the control plane:
# ADMIN_EMAIL=admin@example.com
# DATABASE_URL=postgres://gateway:change-me@127.0.0.1:5432/gateway
# REDIS_URL=redis://127.0.0.1:6379
# ALLOWED_ORIGINS=https://admin.example.com

# A route with auth type jwt names its own variable in auth.jwt.secretEnv, never one of the
# secrets above (the configuration refuses them: route and management tokens would vouch for
# each other):
# ROUTE_JWT_SECRET=

# Optional defaults for the gateway command:
# GATEWAY_CONFIG=proxy.yml
# GATEWAY_DATA_DIR=.gateway
# LOG_LEVEL=info
`;
}
