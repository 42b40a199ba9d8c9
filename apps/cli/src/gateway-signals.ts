import { EXIT } from './command';
import type { RunningGateway } from './gateway-roles';
import type { JsonLineLogger } from './json-line-logger';

/**
 * Process signals of `gateway start`. Installed before anything else loads, because Node exits
 * on SIGHUP by default: a SIGHUP that arrives while the gateway starts is remembered and applied
 * once it listens. SIGTERM/SIGINT close the plane (in-flight requests drain) and then the caller
 * exits 0; a second stop signal exits at once.
 */
export class GatewaySignals {
  private plane: RunningGateway | undefined;
  private reloadPending = false;
  private stopSignal: NodeJS.Signals | undefined;
  private cleanup: () => void = () => undefined;
  private finish: (code: number) => void = () => undefined;
  private readonly finished = new Promise<number>((resolve) => {
    this.finish = resolve;
  });

  constructor(private readonly log: JsonLineLogger) {}

  install(): void {
    process.on('SIGHUP', () => this.onHangUp());
    process.on('SIGTERM', () => this.onStop('SIGTERM'));
    process.on('SIGINT', () => this.onStop('SIGINT'));
  }

  /** A stop signal arrived before the plane was handed over. */
  get stopping(): boolean {
    return this.stopSignal !== undefined;
  }

  /**
   * What an exit must undo (the pid and url files), registered as soon as they exist: a second stop
   * signal that arrives before serve() exits at once and must still remove them.
   */
  cleanupOnExit(cleanup: () => void): void {
    this.cleanup = cleanup;
  }

  /**
   * Hands over the listening plane and applies what arrived meanwhile. Resolves with the exit
   * code once a stop signal has closed it and `cleanup` ran.
   */
  serve(plane: RunningGateway, cleanup: () => void): Promise<number> {
    this.plane = plane;
    this.cleanup = cleanup;
    if (this.stopSignal !== undefined) {
      void this.stop(plane);
    } else if (this.reloadPending) {
      this.reloadPending = false;
      void this.reload(plane);
    }
    return this.finished;
  }

  private onHangUp(): void {
    if (this.stopSignal !== undefined) return;
    if (this.plane === undefined) {
      this.reloadPending = true;
      this.log.info({ signal: 'SIGHUP' }, 'SIGHUP received while starting; reloading once listening');
      return;
    }
    void this.reload(this.plane);
  }

  /** Never throws: a bad file or a reload bug leaves the running routes in place. */
  private async reload(plane: RunningGateway): Promise<void> {
    this.log.info({ signal: 'SIGHUP' }, 'SIGHUP received; reloading configuration');
    try {
      const outcome = await plane.reload();
      if (outcome.ok) {
        const { added, changed, removed } = outcome.diff;
        this.log.info({ routes: outcome.routes, added: added.length, changed: changed.length, removed: removed.length }, 'SIGHUP reload applied');
      } else {
        this.log.warn({ errors: outcome.errors.length }, 'SIGHUP reload rejected; keeping the running routes');
      }
    } catch (error) {
      this.log.error({ err: String(error) }, 'SIGHUP reload failed; keeping the running routes');
    }
  }

  private onStop(signal: NodeJS.Signals): void {
    if (this.stopSignal !== undefined) {
      this.log.warn({ signal }, 'second stop signal; exiting without waiting for in-flight requests');
      this.cleanup();
      process.exit(EXIT.failure);
    }
    this.stopSignal = signal;
    this.log.info({ signal }, 'stopping: draining in-flight requests');
    // Still starting: serve() stops the plane as soon as it is handed over.
    if (this.plane !== undefined) void this.stop(this.plane);
  }

  private async stop(plane: RunningGateway): Promise<void> {
    let code: number = EXIT.ok;
    try {
      await plane.close();
    } catch (error) {
      this.log.error({ err: String(error) }, 'error while stopping');
      code = EXIT.failure;
    }
    this.cleanup();
    this.finish(code);
  }
}
