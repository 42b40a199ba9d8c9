import type { ServerResponse } from 'node:http';
import { copyOf } from './read-buffer';

/** Slices below this go through `copyOf` (node's 8 KiB pool): a pooled buffer would hold up to 4 KiB for a few bytes. */
const POOLED_COPY_MIN = 4 * 1024;

/** The largest slice a plain read lends (the shared read buffer's size); larger ones are copied as before. */
const POOLED_COPY_MAX = 64 * 1024;

/** Free buffers kept per size class, in bytes: at most 5 classes x 1 MiB held when idle. */
const KEPT_BYTES_PER_CLASS = 1024 * 1024;

/**
 * Buffers for the copies of lent body slices (read-buffer.ts) written into a client's response,
 * taken back once node has written them, so a proxied body allocates no new backing store.
 *
 * Why: V8 (11.x, node 20) counts every ArrayBuffer backing store allocated since the last full
 * collection against the old generation's limit (`OldGenerationSpaceAvailable` adds
 * `AllocatedExternalMemorySinceMarkCompact`), and only a scavenge frees a dead young one. With
 * the gateway's 32 MiB semi-spaces a scavenge comes every ~2,000 requests, so a copy of each 16 KiB
 * body put ~35 MB of external memory between two scavenges: past the limit's slack, so V8 ran a
 * mark-compact (4-9 ms pause) about every 300 ms instead, the 16 KiB p99 goal's missing piece
 * (docs/data-plane.md, "16 KiB p99: mark-compacts started by body copies").
 *
 * Sizes go by powers of two from 4 KiB to 64 KiB (at most twice the slice, so a queue of pooled
 * copies behind a slow client holds at most twice the bytes its stream counts). A buffer comes
 * back only from the write's callback, which node calls once it no longer reads the bytes (written,
 * or dropped with an error); one that never comes back (a response destroyed with the chunk
 * queued) is left to the GC, as every copy was before.
 */
export class WriteBufferPool {
  private readonly free: ArrayBuffer[][] = [];
  private readonly kept: number[] = [];

  constructor(keptBytesPerClass = KEPT_BYTES_PER_CLASS) {
    for (let size = POOLED_COPY_MIN; size <= POOLED_COPY_MAX; size *= 2) {
      this.free.push([]);
      this.kept.push(Math.max(1, Math.floor(keptBytesPerClass / size)));
    }
  }

  /**
   * Writes a copy of the lent `slice` into `res` (node:http's own response; an HTTP/2 stream's
   * buffers live by other rules); returns `res.write`'s answer.
   */
  write(res: ServerResponse, slice: Buffer): boolean {
    const length = slice.length;
    if (length < POOLED_COPY_MIN || length > POOLED_COPY_MAX) return res.write(copyOf(slice));
    const index = classOf(length);
    const store = this.free[index]?.pop() ?? Buffer.allocUnsafeSlow(POOLED_COPY_MIN << index).buffer;
    const copy = Buffer.from(store, 0, length);
    slice.copy(copy, 0, 0, length);
    return res.write(copy, () => this.giveBack(index, store));
  }

  /** Free buffers held now, per class (4 KiB first): what the tests read. */
  get held(): readonly number[] {
    return this.free.map((list) => list.length);
  }

  private giveBack(index: number, store: ArrayBuffer): void {
    const list = this.free[index] as ArrayBuffer[];
    if (list.length < (this.kept[index] as number)) list.push(store);
  }
}

/** The size class of a length in [POOLED_COPY_MIN, POOLED_COPY_MAX]: 0 for 4 KiB, ..., 4 for 64 KiB. */
function classOf(length: number): number {
  // 32 - clz32(n - 1) is log2 of the next power of two; 12 is log2(4 KiB).
  return Math.max(0, 32 - Math.clz32(length - 1) - 12);
}

/** The one pool: reads are lent one at a time from the event loop, and copies come back from write callbacks on it. */
export const WRITE_BUFFERS = new WriteBufferPool();
