import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from './authenticated-user';

/** What a feature adds to a logout: where the browser should go next (an IdP's single logout). */
export type LogoutExtension = (user: AuthenticatedUser) => Promise<{ sloUrl?: string } | undefined>;

/**
 * Features below auth in nothing but this: SAML registers its single logout here from its
 * module's onModuleInit, so auth never imports SAML (the layers stay one way).
 */
@Injectable()
export class LogoutExtensions {
  private readonly extensions: LogoutExtension[] = [];

  register(extension: LogoutExtension): void {
    this.extensions.push(extension);
  }

  /** The first extension with somewhere to go wins (there is one identity provider). */
  async after(user: AuthenticatedUser): Promise<{ sloUrl?: string }> {
    for (const extension of this.extensions) {
      const next = await extension(user);
      if (next?.sloUrl !== undefined) return { sloUrl: next.sloUrl };
    }
    return {};
  }
}
