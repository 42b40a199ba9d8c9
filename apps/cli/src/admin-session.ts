import { CommandFailure, type CommandContext } from './command';
import { describeAnswer, envelopeData, nonBlank, requestJson, type GatewayAnswer } from './gateway-client';
import { TokenCache } from './token-cache';

type Credentials = { email: string; password: string };

/**
 * An admin's calls to a running gateway. The token is `--token` or $GATEWAY_TOKEN when given
 * (used as is), else one logged in for with $ADMIN_EMAIL / $ADMIN_PASSWORD and kept in the data
 * directory's TokenCache: reused until it expires, and replaced by one new login when the gateway
 * refuses it (revoked at logout, a new JWT_SECRET). The token is never printed.
 */
export class AdminSession {
  private constructor(
    private readonly base: URL,
    private token: string,
    private readonly login: { credentials: Credentials; cache: TokenCache; fresh: boolean } | undefined,
  ) {}

  static async open(context: CommandContext, base: URL, flag: string | undefined, dataDir: string): Promise<AdminSession> {
    const given = flag ?? nonBlank(context.env['GATEWAY_TOKEN']);
    if (given !== undefined) return new AdminSession(base, given, undefined);
    const email = nonBlank(context.env['ADMIN_EMAIL']);
    const password = context.env['ADMIN_PASSWORD'];
    if (email === undefined || password === undefined || password === '') {
      throw new CommandFailure('this command needs an admin token: pass --token, set GATEWAY_TOKEN, or set ADMIN_EMAIL and ADMIN_PASSWORD (in the environment or .env)');
    }
    const credentials = { email, password };
    const cache = new TokenCache(dataDir);
    const cached = await cache.find(base.origin, email);
    if (cached !== undefined) return new AdminSession(base, cached, { credentials, cache, fresh: false });
    return new AdminSession(base, await logIn(base, credentials, cache), { credentials, cache, fresh: true });
  }

  /** GET with the token; a cached token the gateway refuses is replaced by one new login, then retried once. */
  async get(pathAndQuery: string): Promise<GatewayAnswer> {
    const answer = await requestJson(this.base, 'GET', pathAndQuery, { token: this.token });
    if (answer.status !== 401 || this.login === undefined || this.login.fresh) return answer;
    const { credentials, cache } = this.login;
    await cache.forget(this.base.origin, credentials.email);
    this.token = await logIn(this.base, credentials, cache);
    this.login.fresh = true;
    return requestJson(this.base, 'GET', pathAndQuery, { token: this.token });
  }
}

async function logIn(base: URL, credentials: Credentials, cache: TokenCache): Promise<string> {
  const answer = await requestJson(base, 'POST', '/api/auth/login', { body: credentials });
  const data = envelopeData(answer) as { token?: unknown; expiresIn?: unknown } | undefined;
  if (answer.status !== 200 || typeof data?.token !== 'string') {
    throw new CommandFailure(`login as ${credentials.email} failed: ${describeAnswer(answer)}`);
  }
  if (typeof data.expiresIn === 'number' && data.expiresIn > 0) {
    const expiresAt = new Date(Date.now() + data.expiresIn * 1000).toISOString();
    // A cache that cannot be written costs a login next time, never this command.
    await cache.store({ url: base.origin, email: credentials.email, token: data.token, expiresAt }).catch(() => undefined);
  }
  return data.token;
}

