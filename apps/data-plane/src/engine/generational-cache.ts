/**
 * A bounded memory of recent entries (verified tokens, sessions, credentials) in two generations:
 * new entries go into the current one; when it is full it becomes the previous one and the old
 * previous one is dropped whole. Lookups see both, so an entry lives for one to two generations.
 *
 * Why not one Map that deletes its oldest key when full: V8 leaves deleted Map slots in place, and
 * `keys().next()` walks over them, so under churn (every request a new token) each eviction scanned
 * thousands of holes and doubled the cost of a JWT check. Dropping a whole Map costs nothing per
 * entry.
 */
export class GenerationalCache<K, V> {
  private current = new Map<K, V>();
  private previous = new Map<K, V>();

  /** At most `2 * perGeneration` entries are held. */
  constructor(private readonly perGeneration: number) {}

  get(key: K): V | undefined {
    const value = this.current.get(key);
    return value !== undefined ? value : this.previous.get(key);
  }

  /**
   * The value held for `key`, made by `make` and kept when there is none: a derived string made
   * once while its key recurs (the rate limit's scope and store keys) keeps its hash, where one made
   * per request is hashed again by every Map it is looked up in.
   */
  getOrAdd(key: K, make: (key: K) => V): V {
    let value = this.get(key);
    if (value === undefined) {
      value = make(key);
      this.set(key, value);
    }
    return value;
  }

  /** Entries held now, in both generations (at most `2 * perGeneration`). */
  get size(): number {
    return this.current.size + this.previous.size;
  }

  set(key: K, value: V): void {
    if (this.current.size >= this.perGeneration) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }

  delete(key: K): void {
    this.current.delete(key);
    this.previous.delete(key);
  }

  clear(): void {
    this.current.clear();
    this.previous.clear();
  }
}
