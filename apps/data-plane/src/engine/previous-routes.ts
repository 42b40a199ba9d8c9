import type { Route } from '@gateway/route-model';

/** Routes indexed by id in one step of `takeElsewhere`'s map build. */
const IDS_PER_STEP = 256;
/** Routes looked at in one step of `eachLeft`. */
const LEFT_PER_STEP = 512;

/**
 * The previous configuration's routes as a full reload meets them again: each new route takes
 * the previous route with its id at most once, and what no route took was removed.
 *
 * A reload mostly keeps routes where they were, so route i is first looked for at position i
 * (`takeInPlace`); only when that misses is a map of ids built (in steps, at the first miss) and
 * asked. Before, every reload put the 10,000 previous routes in a map and deleted them one by
 * one: 20,000 hash operations, two rehashes of a few milliseconds each as it grew past 4,096 and
 * 8,192 entries (single steps of their own), and ~0.4 MB for the old generation every reload.
 */
export class PreviousRoutes {
  /** 1 where a new route took that previous route. */
  private readonly taken: Uint8Array;
  private positions: Map<string, number> | undefined;

  constructor(private readonly list: readonly Route[]) {
    this.taken = new Uint8Array(list.length);
  }

  /** The previous route at `position` when it has this id and is not taken yet (then it is taken). */
  takeInPlace(position: number, id: string): Route | undefined {
    const route = this.list[position];
    if (route === undefined || route.id !== id || this.taken[position] === 1) return undefined;
    this.taken[position] = 1;
    return route;
  }

  /** The previous route with this id wherever it is, unless taken already (then it is taken). */
  *takeElsewhere(id: string): Generator<void, Route | undefined, void> {
    this.positions ??= yield* positionsById(this.list);
    const position = this.positions.get(id);
    if (position === undefined || this.taken[position] === 1) return undefined;
    this.taken[position] = 1;
    return this.list[position];
  }

  /** Calls `visit` with every route nobody took, in the previous list's order, a chunk a step. */
  *eachLeft(visit: (route: Route) => void): Generator<void, void, void> {
    for (let i = 0; i < this.list.length; i += 1) {
      if (this.taken[i] === 0) visit(this.list[i] as Route);
      if (i % LEFT_PER_STEP === LEFT_PER_STEP - 1) yield;
    }
  }
}

function* positionsById(list: readonly Route[]): Generator<void, Map<string, number>, void> {
  const positions = new Map<string, number>();
  for (let i = 0; i < list.length; i += 1) {
    positions.set((list[i] as Route).id, i);
    if (i % IDS_PER_STEP === IDS_PER_STEP - 1) yield;
  }
  return positions;
}
