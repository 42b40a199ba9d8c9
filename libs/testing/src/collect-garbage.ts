import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/**
 * A full garbage collection, now (memory specs: a real heap figure needs one before each reading).
 * The test runner starts node without --expose-gc, so the flag is set on first use.
 */
export function collectGarbage(): void {
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
