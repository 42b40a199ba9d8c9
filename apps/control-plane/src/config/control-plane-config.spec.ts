import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from './config-error';
import { parseControlPlaneConfig, type ConfigInput } from './control-plane-config';

const SECRET = 'a'.repeat(40);
const SETTINGS_KEY = 's'.repeat(40);
const base = (env: NodeJS.ProcessEnv, extra: Partial<ConfigInput> = {}): ConfigInput => ({
  dataDir: '/data',
  configPath: '/data/proxy.yml',
  version: '1.2.3',
  standalone: true,
  // Required in the control-plane role; its own test below leaves it out.
  env: { SETTINGS_ENCRYPTION_KEY: SETTINGS_KEY, ...env },
  ...extra,
});

function problemsOf(input: ConfigInput): string[] {
  try {
    parseControlPlaneConfig(input);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems.map((p) => p.variable);
  }
  assert.fail('expected a ConfigError');
}

test('defaults: SQLite in the data dir, local origins, info level, 24 h tokens', () => {
  const config = parseControlPlaneConfig(base({ JWT_SECRET: SECRET }));
  assert.deepEqual(config.database, { kind: 'sqlite', file: '/data/gateway.sqlite' });
  assert.equal(config.logLevel, 'info');
  assert.equal(config.auth.tokenTtlSeconds, 86400);
  assert.equal(config.auth.jwtSecretSource, 'env');
  assert.ok(config.allowedOrigins.includes('http://localhost:5173'));
  assert.equal(config.redisUrl, undefined);
  assert.equal(config.initialAdmin, undefined);
});

test('every bad variable is named at once, and no secret value appears in the message', () => {
  const env = {
    DATABASE_URL: 'mysql://db/x',
    REDIS_URL: 'not a url',
    CLUSTER_TOKEN: 'short',
    JWT_SECRET: 'tiny-secret',
    ADMIN_EMAIL: 'not-an-email',
    ADMIN_PASSWORD: 'pw',
    ALLOWED_ORIGINS: 'https://ok.example.com,ftp://nope',
    LOG_LEVEL: 'loud',
  };
  assert.deepEqual(problemsOf(base(env)).sort(), ['ADMIN_EMAIL', 'ADMIN_PASSWORD', 'ALLOWED_ORIGINS', 'CLUSTER_TOKEN', 'DATABASE_URL', 'JWT_SECRET', 'LOG_LEVEL', 'REDIS_URL']);
  try {
    parseControlPlaneConfig(base(env));
  } catch (error) {
    assert.doesNotMatch((error as Error).message, /tiny-secret|short\b.*short/);
  }
});

test('JWT_SECRET is required in the control-plane role; one-process mode falls back to the persisted one', () => {
  assert.deepEqual(problemsOf(base({})), ['JWT_SECRET']);
  const config = parseControlPlaneConfig(base({}, { standalone: false, persistedSecret: (name) => ({ secret: SECRET, source: 'generated', file: `/data/${name}` }) }));
  assert.equal(config.auth.jwtSecret, SECRET);
  assert.equal(config.auth.jwtSecretSource, 'generated');
});

test('API_KEY_SECRET: at least 32 characters; optional in the control-plane role; persisted in one-process mode', () => {
  assert.deepEqual(problemsOf(base({ JWT_SECRET: SECRET, API_KEY_SECRET: 'short-api-key-secret' })), ['API_KEY_SECRET']);
  assert.deepEqual(parseControlPlaneConfig(base({ JWT_SECRET: SECRET })).apiKeys, { secretSource: 'unset' });
  const fromEnv = parseControlPlaneConfig(base({ JWT_SECRET: SECRET, API_KEY_SECRET: 'b'.repeat(32) }));
  assert.deepEqual(fromEnv.apiKeys, { secret: 'b'.repeat(32), secretSource: 'env' });
  const asked: string[] = [];
  const persisted = parseControlPlaneConfig(
    base({}, { standalone: false, persistedSecret: (name) => (asked.push(name), { secret: `${name}-${SECRET}`, source: 'file', file: `/data/${name}` }) }),
  );
  assert.deepEqual(asked.sort(), ['apiKey', 'cluster', 'jwt']);
  assert.deepEqual(persisted.apiKeys, { secret: `apiKey-${SECRET}`, secretSource: 'file' });
  assert.equal(persisted.auth.jwtSecret, `jwt-${SECRET}`);
});

test('ADMIN_EMAIL and ADMIN_PASSWORD come together; the email is lower-cased', () => {
  assert.deepEqual(problemsOf(base({ JWT_SECRET: SECRET, ADMIN_EMAIL: 'a@b.c' })), ['ADMIN_PASSWORD']);
  const config = parseControlPlaneConfig(base({ JWT_SECRET: SECRET, ADMIN_EMAIL: 'Admin@Example.COM', ADMIN_PASSWORD: 'long enough password' }));
  assert.deepEqual(config.initialAdmin, { email: 'admin@example.com', password: 'long enough password' });
});

test('DATABASE_URL selects PostgreSQL; REDIS_URL and origins are parsed', () => {
  const config = parseControlPlaneConfig(base({ JWT_SECRET: SECRET, DATABASE_URL: 'postgres://u@h:5432/db', REDIS_URL: 'redis://127.0.0.1:6379', ALLOWED_ORIGINS: 'https://a.example.com, http://localhost:3000' }));
  assert.deepEqual(config.database, { kind: 'postgres', url: 'postgres://u@h:5432/db' });
  assert.equal(config.redisUrl, 'redis://127.0.0.1:6379');
  assert.deepEqual(config.allowedOrigins, ['https://a.example.com', 'http://localhost:3000']);
});

test('route paths under /api, /admin, /internal are reserved in one-process mode only', () => {
  assert.deepEqual(parseControlPlaneConfig(base({ JWT_SECRET: SECRET })).reservedPathPrefixes, []);
  const oneProcess = parseControlPlaneConfig(base({}, { standalone: false, persistedSecret: (name) => ({ secret: SECRET, source: 'generated', file: `/data/${name}` }) }));
  assert.deepEqual(oneProcess.reservedPathPrefixes, ['/api', '/admin', '/internal']);
});

test('the bus key: CLUSTER_TOKEN; one-process mode without it the persisted one; the control-plane role without it one of its own; CLUSTER_TOKEN_PREVIOUS checked like it', () => {
  const token = 'c'.repeat(24);
  const fromEnv = parseControlPlaneConfig(base({ JWT_SECRET: SECRET, CLUSTER_TOKEN: token, CLUSTER_TOKEN_PREVIOUS: 'p'.repeat(16) }));
  assert.deepEqual(fromEnv.bus, { clusterToken: token, previousClusterToken: 'p'.repeat(16), tokenSource: 'env' });
  const oneProcess = parseControlPlaneConfig(base({}, { standalone: false, persistedSecret: (name) => ({ secret: `${name}-${SECRET}`, source: 'file', file: `/data/${name}` }) }));
  assert.deepEqual(oneProcess.bus, { clusterToken: `cluster-${SECRET}`, tokenSource: 'file' });
  assert.equal(oneProcess.clusterToken, undefined, 'the generated key does not open the snapshot endpoint');
  const alone = parseControlPlaneConfig(base({ JWT_SECRET: SECRET }));
  assert.equal(alone.bus.tokenSource, 'ephemeral');
  assert.ok(alone.bus.clusterToken.length >= 32);
  assert.notEqual(parseControlPlaneConfig(base({ JWT_SECRET: SECRET })).bus.clusterToken, alone.bus.clusterToken);
  assert.deepEqual(problemsOf(base({ JWT_SECRET: SECRET, CLUSTER_TOKEN: token, CLUSTER_TOKEN_PREVIOUS: 'short' })), ['CLUSTER_TOKEN_PREVIOUS']);
});

test('one-process mode: a set secret that differs from the one stored in the data dir is refused, naming the file; the same one is accepted', () => {
  const stored = { file: '/data/api-key-secret', secret: 'b'.repeat(40) };
  const input = (apiKey: string): ConfigInput =>
    base({ JWT_SECRET: SECRET, API_KEY_SECRET: apiKey }, { standalone: false, storedSecret: (name) => (name === 'apiKey' ? stored : undefined) });
  try {
    parseControlPlaneConfig(input('c'.repeat(40)));
    assert.fail('expected a ConfigError');
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    assert.deepEqual(error.problems.map((p) => p.variable), ['API_KEY_SECRET']);
    assert.match(error.problems[0]!.message, /kept in \/data\/api-key-secret/);
    assert.ok(!error.message.includes('c'.repeat(40)) && !error.message.includes(stored.secret), 'no secret in the message');
  }
  assert.equal(parseControlPlaneConfig(input(stored.secret)).apiKeys.secret, stored.secret);
  // The control-plane role never reads the one-process files.
  assert.equal(parseControlPlaneConfig({ ...input('c'.repeat(40)), standalone: true }).apiKeys.secretSource, 'env');
});

test('TRUSTED_PROXIES: comma-separated IPs and CIDRs (IPv4 and IPv6), empty by default; a bad entry is named', () => {
  assert.deepEqual(parseControlPlaneConfig(base({ JWT_SECRET: SECRET })).trustedProxies, []);
  assert.deepEqual(parseControlPlaneConfig(base({ JWT_SECRET: SECRET, TRUSTED_PROXIES: ' 10.0.0.0/8, 192.168.1.5,,fd00::/8 ' })).trustedProxies, ['10.0.0.0/8', '192.168.1.5', 'fd00::/8']);
  for (const bad of ['10.0.0.0/33', 'lb.internal', '10.0.0.0/8 10.1.0.0/16']) {
    assert.deepEqual(problemsOf(base({ JWT_SECRET: SECRET, TRUSTED_PROXIES: bad })), ['TRUSTED_PROXIES'], bad);
  }
});

test('REDIS_TLS_CA_FILE: named when unreadable or set without a rediss:// REDIS_URL', () => {
  assert.deepEqual(problemsOf(base({ JWT_SECRET: SECRET, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_TLS_CA_FILE: '/etc/hostname' })), ['REDIS_TLS_CA_FILE']);
  assert.deepEqual(problemsOf(base({ JWT_SECRET: SECRET, REDIS_URL: 'rediss://127.0.0.1:6380', REDIS_TLS_CA_FILE: '/nonexistent/ca.pem' })), ['REDIS_TLS_CA_FILE']);
  assert.equal(parseControlPlaneConfig(base({ JWT_SECRET: SECRET, REDIS_URL: 'rediss://u:p@127.0.0.1:6380' })).redisTlsCa, undefined);
});

test('SETTINGS_ENCRYPTION_KEY: required in the control-plane role, at least 32 characters; one-process mode falls back to the persisted one', () => {
  const without = { ...base({ JWT_SECRET: SECRET }), env: { JWT_SECRET: SECRET } };
  assert.deepEqual(problemsOf(without), ['SETTINGS_ENCRYPTION_KEY']);
  assert.deepEqual(problemsOf(base({ JWT_SECRET: SECRET, SETTINGS_ENCRYPTION_KEY: 'short-settings-key' })), ['SETTINGS_ENCRYPTION_KEY']);
  assert.deepEqual(parseControlPlaneConfig(base({ JWT_SECRET: SECRET })).settingsEncryption, { key: SETTINGS_KEY, keySource: 'env' });
  const asked: string[] = [];
  const oneProcess = parseControlPlaneConfig({
    ...base({}, { standalone: false, persistedSecret: (name) => (asked.push(name), { secret: `${name}-${SECRET}`, source: 'generated', file: `/data/${name}` }) }),
    env: {},
  });
  assert.ok(asked.includes('settings'));
  assert.deepEqual(oneProcess.settingsEncryption, { key: `settings-${SECRET}`, keySource: 'generated' });
});
