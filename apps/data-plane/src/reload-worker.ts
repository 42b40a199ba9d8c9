import path from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { ProxyConfig } from '@gateway/route-model';
import type { ConfigFileError } from '@gateway/config-file';
import type { ConfigWorkerMessage, ConfigWorkerRequest, RouteRecords } from './proxy-config-worker-protocol';

export interface ReloadWorkerOptions {
  /** The worker's script (proxy-config-worker.js; a test passes one that misbehaves). */
  readonly script: string;
  /** A read that takes longer fails, and the thread is ended. */
  readonly timeoutMs: number;
  /** The thread ends this long after its last answer, so that it holds no memory between bursts of reloads. */
  readonly idleMs: number;
  readonly resourceLimits?: ResourceLimits;
}

/** What a read gives: the configuration without its routes and the routes as records, or why not. */
export type WorkerRead = { ok: true; config: ProxyConfig; records: RouteRecords } | { ok: false; errors: ConfigFileError[] };

/**
 * The thread that reads proxy.yml for reloads, kept while reloads keep coming. Starting a worker
 * for every reload cost the event loop 2.5-9 ms of CPU in `new Worker` alone (one of a quiet
 * reload's longest steps), and the thread then loaded the YAML parser and the route model and ran
 * them cold: most of a reload's CPU outside the main thread. A thread that stays parses the next
 * file with its code already compiled. Bounded as before: one read at a time, a read that takes
 * longer than `timeoutMs`, a crash or an out-of-memory fails that read and ends the thread (the
 * next read starts another); and the thread ends `idleMs` after its last answer, so a gateway
 * that reloads now and then holds no parser heap between reloads. The thread never keeps the
 * process alive (unref), and its errors are always listened to: a dying worker is a failed reload,
 * never a crashed gateway.
 */
export class ReloadWorker {
  private worker: Worker | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private reads = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** Threads started so far (a test reads it: a thread reused, or started again after a failure). */
  threadsStarted = 0;

  constructor(private readonly options: ReloadWorkerOptions) {}

  /** Reads `filePath` in the thread; reads asked for while one runs wait for it. */
  read(filePath: string): Promise<WorkerRead> {
    const next = this.queue.then(() => this.readNow(filePath));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Whether a thread is running now (idle or reading). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Ends the thread now, if there is one. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private readNow(filePath: string): Promise<WorkerRead> {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const worker = this.worker ?? this.start();
    this.reads += 1;
    const id = this.reads;
    return new Promise<WorkerRead>((resolve) => {
      let config: ProxyConfig | undefined;
      let records: RouteRecords | undefined;
      const finish = (result: WorkerRead, healthy: boolean): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (healthy && this.worker === worker) this.idleTimer = setTimeout(() => this.stop(worker), this.options.idleMs).unref();
        else this.stop(worker);
        resolve(result);
      };
      const fail = (message: string): void => finish({ ok: false, errors: [{ field: '(reload)', code: 'RELOAD_FAILED', message }] }, false);
      const onMessage = (message: ConfigWorkerMessage): void => {
        // Only this read's answers: a thread that timed out is ended, never asked again.
        if (message.read !== id) return;
        switch (message.kind) {
          case 'config':
            config = message.config;
            break;
          case 'routes':
            records = message.records;
            break;
          case 'done':
            if (config === undefined || records === undefined) fail('the configuration worker sent no configuration');
            else finish({ ok: true, config, records }, true);
            break;
          case 'failed':
            finish({ ok: false, errors: message.errors }, true);
            break;
        }
      };
      const onError = (error: Error): void => fail(`the configuration worker failed: ${error.message}`);
      const onExit = (code: number): void => fail(`the configuration worker exited (code ${code}) before it finished`);
      const timer = setTimeout(() => fail(`reading ${path.basename(filePath)} took longer than ${this.options.timeoutMs / 1000} s`), this.options.timeoutMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ read: id, filePath } satisfies ConfigWorkerRequest);
    });
  }

  private start(): Worker {
    const worker = new Worker(this.options.script, this.options.resourceLimits === undefined ? {} : { resourceLimits: this.options.resourceLimits });
    // Never what keeps the process alive: a read in progress has its timer for that.
    worker.unref();
    // Always listened to (an unhandled 'error' event would end the process); a thread that dies while idle is forgotten.
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    this.worker = worker;
    this.threadsStarted += 1;
    return worker;
  }

  private stop(worker: Worker): void {
    if (this.worker === worker) {
      this.worker = undefined;
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    }
    void worker.terminate();
  }
}
