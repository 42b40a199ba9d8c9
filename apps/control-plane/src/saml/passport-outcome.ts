/** The part of a passport strategy an attempt uses (typed loosely: strategies bring their own express typings). */
interface AttemptableStrategy<Req, Options> {
  authenticate(req: Req, options: Options): void;
}

/** How a passport strategy ended one attempt (passport's success, fail, redirect, pass and error). */
export type StrategyOutcome =
  | { kind: 'success'; user: Record<string, unknown> }
  | { kind: 'fail' }
  | { kind: 'redirect'; url: string }
  | { kind: 'pass' }
  | { kind: 'error'; error: unknown };

/**
 * Runs one strategy attempt as passport.authenticate does (a child object carrying the five
 * actions), answering the outcome instead of writing the response: initiate answers the IdP
 * address as JSON and the callback runs checks of its own after the strategy's.
 */
export function runStrategy<Req, Options extends object>(strategy: AttemptableStrategy<Req, Options>, req: Req, options: Options): Promise<StrategyOutcome> {
  return new Promise((resolve) => {
    const attempt = Object.create(strategy) as AttemptableStrategy<Req, Options> & Record<string, unknown>;
    attempt['success'] = (user: Record<string, unknown>) => resolve({ kind: 'success', user });
    attempt['fail'] = () => resolve({ kind: 'fail' });
    attempt['redirect'] = (url: string) => resolve({ kind: 'redirect', url });
    attempt['pass'] = () => resolve({ kind: 'pass' });
    attempt['error'] = (error: unknown) => resolve({ kind: 'error', error });
    try {
      attempt.authenticate(req, options);
    } catch (error) {
      resolve({ kind: 'error', error });
    }
  });
}
