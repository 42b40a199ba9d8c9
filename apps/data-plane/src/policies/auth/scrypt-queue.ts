/** At most this many scrypt derivations run at once (each holds a libuv pool thread and ~16 MiB). */
export const SCRYPT_CONCURRENCY = 1;
/** Derivations waiting for a slot at most; one more is refused (503 AUTH_OVERLOADED) at once. */
export const SCRYPT_MAX_WAITING = 8;

/**
 * A cap on concurrent scrypt work for the whole data plane: a flood of wrong passwords can keep
 * `concurrency` pool threads busy, never every core, and the event loop and other libuv work
 * (DNS, files) keep their threads. Waiting is bounded too, so a flood cannot grow a queue that
 * answers long after the client gave up.
 */
export class ScryptQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly concurrency = SCRYPT_CONCURRENCY,
    readonly maxWaiting = SCRYPT_MAX_WAITING,
  ) {}

  /** Runs `task` when a slot is free; undefined when the queue is full (the task never runs). */
  run<T>(task: () => Promise<T>): Promise<T> | undefined {
    if (this.running < this.concurrency) return this.start(task);
    if (this.waiting.length >= this.maxWaiting) return undefined;
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => {
        this.start(task).then(resolve, reject);
      });
    });
  }

  private start<T>(task: () => Promise<T>): Promise<T> {
    this.running += 1;
    return task().finally(() => {
      this.running -= 1;
      this.waiting.shift()?.();
    });
  }
}
