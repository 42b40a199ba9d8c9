// Preloaded (`node --expose-gc --require`) into a gateway whose instructions callgrind counts, with
// BENCH_CALLGRIND_FORCED_GC=1 (harness/forced-gc.ts): on SIGUSR2 it runs a full garbage collection and prints one line,
// `{"bench":"gc","seq":<n>,"oldGenerationBefore":<bytes>,"oldGenerationAfter":<bytes>}`, so the
// harness can start every counted batch from the same heap, outside the count, and see how much a
// batch left in the old generation. It adds nothing per request: a signal handler, idle until
// the harness sends the signal.
import v8 from 'node:v8';

/** The young generation's spaces; everything else is the old generation, what major collections walk. */
const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space']);

const oldGenerationBytes = (): number =>
  v8
    .getHeapSpaceStatistics()
    .filter((space) => !YOUNG_SPACES.has(space.space_name))
    .reduce((sum, space) => sum + space.space_used_size, 0);

let received = 0;
process.on('SIGUSR2', () => {
  received += 1;
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    process.stdout.write(`${JSON.stringify({ bench: 'gc', seq: received, error: 'node was started without --expose-gc' })}\n`);
    return;
  }
  const oldGenerationBefore = oldGenerationBytes();
  gc();
  process.stdout.write(`${JSON.stringify({ bench: 'gc', seq: received, oldGenerationBefore, oldGenerationAfter: oldGenerationBytes() })}\n`);
});
