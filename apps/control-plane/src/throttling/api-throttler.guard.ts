import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { normalizeIp, type ThrottlerStorage } from '@nestjs/throttler';
import type { ClientAddress } from '@gateway/client-address';
import type { Request, Response } from 'express';
import { REQUIRED_ROLES } from '../auth/auth.decorators';
import { DomainError } from '../common/domain-error';
import type { UserRole } from '../users/user.entity';
import { CLIENT_ADDRESS, THROTTLE_STORAGE, THROTTLING_CONFIG } from './throttling.tokens';
import { THROTTLE_TIERS, type ThrottleTier, type ThrottlingConfig } from './throttling-config';

/** Spec 8's admin resources; handlers that require the admin role count as admin resources too. */
const ADMIN_PREFIXES = ['/api/routes', '/api/users', '/api/logs', '/api/audit-log', '/api/settings', '/api/webhooks', '/api/metrics', '/api/ai', '/api/ai-incidents', '/api/troubleshooting'];

/** Decision 21: the credential endpoints (session and logout stay in the general tier). */
function isCredentialEndpoint(method: string, path: string): boolean {
  return method === 'POST' && (path === '/api/auth/login' || path === '/api/auth/register' || path.startsWith('/api/auth/saml/'));
}

const under = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

/**
 * Decision 21's tiers on every /api request, before authentication (so anonymous floods are
 * limited too). A request counts in every tier it belongs to; the answer carries the headers of
 * spec 7.4 for the tier closest to its limit, and a 429 (RATE_LIMITED) when any tier is exceeded.
 */
@Injectable()
export class ApiThrottlerGuard implements CanActivate {
  constructor(
    @Inject(THROTTLE_STORAGE) private readonly storage: ThrottlerStorage,
    @Inject(THROTTLING_CONFIG) private readonly config: ThrottlingConfig,
    @Inject(CLIENT_ADDRESS) private readonly clientAddress: ClientAddress,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    // Express routes case-insensitively, so the tiers are chosen on the lower-cased path.
    const path = req.path.toLowerCase().replace(/\/+$/, '');
    if (!under(path, '/api')) return true;
    const roles = this.reflector.getAllAndOverride<UserRole[] | undefined>(REQUIRED_ROLES, [context.getHandler(), context.getClass()]);
    const tiers = this.tiersOf(req.method, path, roles);
    // The socket peer, or through TRUSTED_PROXIES the client their X-Forwarded-For names; never
    // express's req.ip, whose 'trust proxy' setting is not ours to keep in step.
    const client = normalizeIp(this.clientAddress(req.socket.remoteAddress ?? 'unknown', req.headers['x-forwarded-for']));

    // The storage never fails open: with Redis away it counts in memory (FailoverThrottlerStorage).
    const counts = await Promise.all(
      tiers.map(async (tier) => ({ tier, ...(await this.storage.increment(`${tier}:${client}`, this.config[tier].windowMs, this.config[tier].max, this.config[tier].windowMs, tier)) })),
    );

    const nowSeconds = Math.floor(Date.now() / 1000);
    const blocked = counts.filter((c) => c.isBlocked).sort((a, b) => b.timeToBlockExpire - a.timeToBlockExpire)[0];
    if (blocked !== undefined) {
      const { max, windowMs } = this.config[blocked.tier];
      const retryAfter = Math.max(1, blocked.timeToBlockExpire);
      res.setHeader('Retry-After', String(retryAfter));
      res.setHeader('X-RateLimit-Limit', String(max));
      res.setHeader('X-RateLimit-Remaining', '0');
      res.setHeader('X-RateLimit-Reset', String(nowSeconds + retryAfter));
      throw new DomainError('RATE_LIMITED', 'Rate limit exceeded', { tier: blocked.tier, limit: max, windowSeconds: windowMs / 1000, retryAfter });
    }
    const tightest = counts
      .map((c) => ({ ...c, remaining: Math.max(0, this.config[c.tier].max - c.totalHits) }))
      .sort((a, b) => a.remaining - b.remaining)[0];
    if (tightest !== undefined) {
      res.setHeader('X-RateLimit-Limit', String(this.config[tightest.tier].max));
      res.setHeader('X-RateLimit-Remaining', String(tightest.remaining));
      res.setHeader('X-RateLimit-Reset', String(nowSeconds + tightest.timeToExpire));
    }
    return true;
  }

  private tiersOf(method: string, path: string, roles: UserRole[] | undefined): ThrottleTier[] {
    const admin = roles?.includes('admin') === true || ADMIN_PREFIXES.some((prefix) => under(path, prefix));
    return THROTTLE_TIERS.filter((tier) => tier === 'general' || (tier === 'admin' && admin) || (tier === 'credentials' && isCredentialEndpoint(method, path)));
  }
}
