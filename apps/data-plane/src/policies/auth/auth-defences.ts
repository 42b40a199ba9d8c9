import type { PolicyStateKey } from '../../engine/ports';
import { FailedCredentialLimit } from './failed-credential-limit';
import { RefusalLog } from './refusal-log';
import { ScryptQueue } from './scrypt-queue';

/**
 * What keeps refusals cheap, for the whole data plane and across reloads (issue 11): the failed-
 * credential limit per client address, the cap on concurrent scrypt work, and the sampled log.
 */
export interface AuthDefences {
  readonly failures: FailedCredentialLimit;
  readonly scrypt: ScryptQueue;
  readonly log: RefusalLog;
  close(): void;
}

export const AUTH_DEFENCES: PolicyStateKey<AuthDefences> = {
  name: 'auth-defences',
  create: (services) => {
    const log = new RefusalLog(services.logger);
    return { failures: new FailedCredentialLimit(), scrypt: new ScryptQueue(), log, close: () => log.close() };
  },
};
