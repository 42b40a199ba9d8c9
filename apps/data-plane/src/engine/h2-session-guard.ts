import http2 from 'node:http2';

/**
 * Per-session budgets for frames that cost the server work but bring it no request: streams the
 * client resets before their answer (CVE-2023-44487, "rapid reset") and SETTINGS frames (each
 * must be acknowledged). node's own defence (nghttp2's stream reset rate limit, a burst of 1000)
 * stays in place underneath; these budgets are far tighter, as a gateway's clients are not
 * expected to cancel more than a few streams.
 */
export const H2_SESSION_BUDGETS = {
  /** Streams reset by the client while the gateway was still answering, per window. */
  resets: 100,
  /** SETTINGS frames from the client, per window (a well-behaved client sends one or two). */
  settings: 50,
  windowMs: 10_000,
} as const;

export type H2Abuse = 'rapid-reset' | 'settings-flood';

/** A fixed-window counter: cheap, and an abuser fills any window. */
class WindowCounter {
  private count = 0;
  private windowStart = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one; true once the window's budget is exceeded. */
  exceeded(now: number): boolean {
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.count = 0;
    }
    this.count += 1;
    return this.count > this.limit;
  }
}

/**
 * Watches one session; past a budget the client gets GOAWAY with ENHANCE_YOUR_CALM (RFC 9113 7)
 * and the session is destroyed, its streams with it.
 */
export function guardSession(session: http2.ServerHttp2Session, onAbuse: (kind: H2Abuse) => void, budgets = H2_SESSION_BUDGETS): void {
  const resets = new WindowCounter(budgets.resets, budgets.windowMs);
  const settings = new WindowCounter(budgets.settings, budgets.windowMs);
  let stopped = false;
  const stop = (kind: H2Abuse): void => {
    // Destroying the session aborts its other streams: they must not count (and log) once more.
    if (stopped || session.destroyed) return;
    stopped = true;
    onAbuse(kind);
    session.goaway(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    // After the GOAWAY frame is written: destroying at once could drop it.
    setImmediate(() => session.destroy());
  };
  session.on('remoteSettings', () => {
    if (settings.exceeded(Date.now())) stop('settings-flood');
  });
  const countReset = (): void => {
    if (resets.exceeded(Date.now())) stop('rapid-reset');
  };
  session.on('stream', (stream: http2.ServerHttp2Stream) => {
    // 'aborted': the client reset the stream before the gateway ended its answer. node announces a
    // stream on the next tick, so a reset that came in the same read as its HEADERS is already there.
    if (stream.aborted) countReset();
    else stream.once('aborted', countReset);
  });
}
