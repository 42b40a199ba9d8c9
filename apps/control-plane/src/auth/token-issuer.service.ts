import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { LiveSettings } from '../settings/live-settings.service';
import type { UserAccount } from '../users/user-accounts.service';

export interface IssuedToken {
  token: string;
  /** Seconds. */
  expiresIn: number;
  /** The `exp` claim as a date: what a session check answers for this token. */
  expiresAt: Date;
  jti: string;
}

/**
 * Signs management tokens: HS256, claims sub, email, role, iat, exp, iss, jti (decision 20), plus
 * `gen`, the user's token generation.
 */
@Injectable()
export class TokenIssuer {
  /** A key object, so jsonwebtoken does not try to parse the secret as a private key each time. */
  private readonly key: KeyObject;

  constructor(
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    private readonly settings: LiveSettings,
  ) {
    this.key = createSecretKey(Buffer.from(config.auth.jwtSecret));
  }

  /** `tokenGeneration`: the user's current one (UserAccountsService); a disable bumps it and so ends the token. */
  issue(account: UserAccount, tokenGeneration: number, session?: { id: string; expiresAt: Date }): IssuedToken {
    const jti = randomUUID();
    // Settings (general.tokenLifetimeSeconds) apply to tokens issued from the change on; a session's token ends with it.
    const lifetime = this.lifetimeSeconds();
    const expiresIn = session === undefined ? lifetime : Math.max(1, Math.min(lifetime, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000)));
    const iat = Math.floor(Date.now() / 1000);
    const claims = { email: account.email, role: account.role, gen: tokenGeneration, iat, exp: iat + expiresIn, ...(session === undefined ? {} : { sid: session.id }) };
    const token = jwt.sign(claims, this.key, {
      algorithm: 'HS256',
      issuer: this.config.auth.issuer,
      subject: account.id,
      jwtid: jti,
    });
    return { token, expiresIn, expiresAt: new Date((iat + expiresIn) * 1000), jti };
  }

  lifetimeSeconds(): number {
    return this.settings.general().tokenLifetimeSeconds;
  }
}
