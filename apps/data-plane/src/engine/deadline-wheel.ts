import { performance } from 'node:perf_hooks';

/** How often due deadlines are looked for: a deadline fires within this much of its time. */
export const DEADLINE_TICK_MS = 25;
/** Consumed entries are dropped from the front of a queue once this many have piled up. */
const COMPACT_AFTER = 4096;

/** Something with a deadline; `deadlineToken` changes whenever its current deadline is cancelled. */
export interface DeadlineOwner {
  deadlineToken: number;
}

type Expire<T extends DeadlineOwner> = (owner: T) => void;

/** Entries of one duration, in due order (they are pushed in time order). */
class DeadlineQueue<T extends DeadlineOwner> {
  owners: T[] = [];
  tokens: number[] = [];
  due: number[] = [];
  head = 0;

  constructor(readonly expire: Expire<T>) {}
}

/**
 * Deadlines for things that almost always finish first (upstream attempts). `setTimeout` per
 * request costs a timer allocation, a list insertion and a removal on the hot path; here
 * scheduling is three array pushes, cancelling is a counter increment, and one sweep every
 * DEADLINE_TICK_MS drops the cancelled entries and fires the due ones.
 */
export class DeadlineWheel<T extends DeadlineOwner> {
  private readonly queues = new Map<number, DeadlineQueue<T>>();
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => this.sweep(performance.now()), DEADLINE_TICK_MS);
    this.timer.unref();
  }

  /** Calls `expire(owner)` about `durationMs` from now unless `cancel(owner)` comes first. */
  schedule(owner: T, durationMs: number, expire: Expire<T>): void {
    let queue = this.queues.get(durationMs);
    if (queue === undefined) {
      queue = new DeadlineQueue(expire);
      this.queues.set(durationMs, queue);
    }
    owner.deadlineToken += 1;
    queue.owners.push(owner);
    queue.tokens.push(owner.deadlineToken);
    queue.due.push(performance.now() + durationMs);
  }

  cancel(owner: T): void {
    owner.deadlineToken += 1;
  }

  /** Fires every live deadline due by `now`; exposed for tests. */
  sweep(now: number): void {
    for (const queue of this.queues.values()) {
      const { owners, tokens, due } = queue;
      let head = queue.head;
      while (head < owners.length) {
        const owner = owners[head] as T;
        const live = tokens[head] === owner.deadlineToken;
        if (live && (due[head] as number) > now) break;
        owners[head] = undefined as unknown as T; // let the exchange be collected
        head += 1;
        if (live) {
          owner.deadlineToken += 1;
          queue.expire(owner);
        }
      }
      queue.head = head;
      if (head === owners.length) {
        queue.owners = [];
        queue.tokens = [];
        queue.due = [];
        queue.head = 0;
      } else if (head >= COMPACT_AFTER) {
        queue.owners = owners.slice(head);
        queue.tokens = tokens.slice(head);
        queue.due = due.slice(head);
        queue.head = 0;
      }
    }
  }

  /** Entries not yet swept (cancelled ones included); for tests and diagnostics. */
  pending(): number {
    let total = 0;
    for (const queue of this.queues.values()) total += queue.owners.length - queue.head;
    return total;
  }

  close(): void {
    clearInterval(this.timer);
    this.queues.clear();
  }
}
