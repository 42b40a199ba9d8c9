import { performance } from 'node:perf_hooks';

/** How often due deadlines are looked for: a deadline fires within this much of its time. */
export const DEADLINE_TICK_MS = 25;
/** Consumed slots are dropped from the front of a queue once this many have piled up. */
const COMPACT_AFTER = 4096;

type Expire<T> = (owner: T) => void;

/**
 * One scheduled deadline. Cancelling clears `owner`, so a finished exchange is released at once
 * even while the slot waits in its queue behind a live one.
 */
export interface DeadlineSlot<T> {
  owner: T | undefined;
  readonly expire: Expire<T>;
  readonly due: number;
}

/** Something with at most one deadline at a time. */
export interface DeadlineOwner<T> {
  deadline: DeadlineSlot<T> | undefined;
}

/**
 * Deadlines for things that almost always finish first (upstream attempts). `setTimeout` per
 * request costs a timer allocation, a list insertion and a removal on the hot path; here
 * scheduling is one small object and an array push, cancelling clears a field, and one sweep every
 * DEADLINE_TICK_MS drops cancelled slots and fires the due ones. Queues are per duration, so each
 * is in due order.
 */
export class DeadlineWheel<T extends DeadlineOwner<T>> {
  private readonly queues = new Map<number, { slots: Array<DeadlineSlot<T>>; head: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => this.sweep(performance.now()), DEADLINE_TICK_MS);
    this.timer.unref();
  }

  /** Calls `expire(owner)` about `durationMs` from now unless `cancel(owner)` comes first. */
  schedule(owner: T, durationMs: number, expire: Expire<T>): void {
    this.cancel(owner);
    let queue = this.queues.get(durationMs);
    if (queue === undefined) {
      queue = { slots: [], head: 0 };
      this.queues.set(durationMs, queue);
    }
    const slot: DeadlineSlot<T> = { owner, expire, due: performance.now() + durationMs };
    owner.deadline = slot;
    queue.slots.push(slot);
  }

  cancel(owner: T): void {
    const slot = owner.deadline;
    if (slot !== undefined) {
      slot.owner = undefined;
      owner.deadline = undefined;
    }
  }

  /** Fires every live deadline due by `now`; exposed for tests. */
  sweep(now: number): void {
    for (const queue of this.queues.values()) {
      const { slots } = queue;
      let head = queue.head;
      while (head < slots.length) {
        const slot = slots[head] as DeadlineSlot<T>;
        const owner = slot.owner;
        if (owner !== undefined && slot.due > now) break;
        head += 1;
        if (owner !== undefined) {
          slot.owner = undefined;
          owner.deadline = undefined;
          slot.expire(owner);
        }
      }
      if (head === slots.length) {
        queue.slots = [];
        queue.head = 0;
      } else if (head >= COMPACT_AFTER) {
        queue.slots = slots.slice(head);
        queue.head = 0;
      } else {
        queue.head = head;
      }
    }
  }

  /** Slots not yet swept (cancelled ones included) and how many still hold an owner. */
  stats(): { slots: number; live: number } {
    let slots = 0;
    let live = 0;
    for (const queue of this.queues.values()) {
      for (let i = queue.head; i < queue.slots.length; i += 1) {
        slots += 1;
        if ((queue.slots[i] as DeadlineSlot<T>).owner !== undefined) live += 1;
      }
    }
    return { slots, live };
  }

  close(): void {
    clearInterval(this.timer);
    this.queues.clear();
  }
}
