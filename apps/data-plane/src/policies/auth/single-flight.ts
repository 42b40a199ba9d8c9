/**
 * Concurrent requests for one key share one run: a burst of identical credentials costs one
 * scrypt or one session-service call, not one each.
 */
export class SingleFlight<K, V> {
  private readonly pending = new Map<K, Promise<V>>();

  has(key: K): boolean {
    return this.pending.has(key);
  }

  run(key: K, work: () => Promise<V>): Promise<V> {
    let flight = this.pending.get(key);
    if (flight === undefined) {
      flight = work().finally(() => this.pending.delete(key));
      this.pending.set(key, flight);
    }
    return flight;
  }
}
