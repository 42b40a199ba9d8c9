import { performance } from 'node:perf_hooks';

/** How often due deadlines are looked for: a deadline fires within this much of its time. */
export const DEADLINE_TICK_MS = 25;

type Expire<T> = (owner: T) => void;

/**
 * One scheduled deadline, a link in its duration's list. Cancelling unlinks it at once, so a
 * finished attempt leaves nothing behind: the slot dies young and is never promoted to the old
 * generation (a queue of cancelled slots that waited for the next sweep was, and under load kept
 * the collector doing full collections).
 */
export interface DeadlineSlot<T> {
  owner: T | undefined;
  readonly expire: Expire<T>;
  readonly due: number;
  prev: DeadlineSlot<T> | undefined;
  next: DeadlineSlot<T> | undefined;
  list: DeadlineList<T> | undefined;
}

interface DeadlineList<T> {
  readonly durationMs: number;
  head: DeadlineSlot<T> | undefined;
  tail: DeadlineSlot<T> | undefined;
}

/** Something with at most one deadline at a time. */
export interface DeadlineOwner<T> {
  deadline: DeadlineSlot<T> | undefined;
}

/**
 * Deadlines for things that almost always finish first (upstream attempts). `setTimeout` per
 * request costs a timer allocation, a list insertion and a removal on the hot path; here
 * scheduling is one small object appended to a list, cancelling unlinks it, and one sweep every
 * DEADLINE_TICK_MS fires the due ones. Lists are per duration, so each is in due order and the
 * sweep stops at the first slot not yet due.
 */
export class DeadlineWheel<T extends DeadlineOwner<T>> {
  private readonly lists = new Map<number, DeadlineList<T>>();
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => this.sweep(performance.now()), DEADLINE_TICK_MS);
    this.timer.unref();
  }

  /** Calls `expire(owner)` about `durationMs` from now unless `cancel(owner)` comes first. */
  schedule(owner: T, durationMs: number, expire: Expire<T>): void {
    this.cancel(owner);
    let list = this.lists.get(durationMs);
    if (list === undefined) {
      list = { durationMs, head: undefined, tail: undefined };
      this.lists.set(durationMs, list);
    }
    const slot: DeadlineSlot<T> = { owner, expire, due: performance.now() + durationMs, prev: list.tail, next: undefined, list };
    if (list.tail === undefined) list.head = slot;
    else list.tail.next = slot;
    list.tail = slot;
    owner.deadline = slot;
  }

  cancel(owner: T): void {
    const slot = owner.deadline;
    if (slot === undefined) return;
    owner.deadline = undefined;
    this.unlink(slot);
  }

  /** Fires every deadline due by `now`; exposed for tests. */
  sweep(now: number): void {
    for (const list of this.lists.values()) {
      let slot = list.head;
      while (slot !== undefined && slot.due <= now) {
        const owner = slot.owner as T;
        this.unlink(slot);
        owner.deadline = undefined;
        slot.expire(owner);
        slot = list.head;
      }
      // Retried attempts get odd durations (what is left of the budget): their lists must not pile up.
      if (list.head === undefined) this.lists.delete(list.durationMs);
    }
  }

  /** Deadlines scheduled and not yet fired or cancelled, and the per-duration lists holding them. */
  stats(): { pending: number; lists: number } {
    let pending = 0;
    for (const list of this.lists.values()) for (let slot = list.head; slot !== undefined; slot = slot.next) pending += 1;
    return { pending, lists: this.lists.size };
  }

  close(): void {
    clearInterval(this.timer);
    this.lists.clear();
  }

  private unlink(slot: DeadlineSlot<T>): void {
    const list = slot.list;
    if (list === undefined) return;
    if (slot.prev === undefined) list.head = slot.next;
    else slot.prev.next = slot.next;
    if (slot.next === undefined) list.tail = slot.prev;
    else slot.next.prev = slot.prev;
    slot.prev = undefined;
    slot.next = undefined;
    slot.list = undefined;
    slot.owner = undefined;
  }
}
