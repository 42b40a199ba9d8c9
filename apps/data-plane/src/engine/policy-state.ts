import type { EngineServices, PolicyStateKey, PolicyStateStore } from './ports';

/** Implemented by state that holds timers or sockets. */
interface Closable {
  close(): void | Promise<void>;
}

function isClosable(value: unknown): value is Closable {
  return typeof value === 'object' && value !== null && typeof (value as Closable).close === 'function';
}

/**
 * State that must outlive a route table (breakers, health checks, rate-limit usage), created on
 * first use and kept for the life of the data plane. Policies reach it through their environment;
 * the composition root reaches the same objects to hand them to the control plane.
 */
export class PolicyState implements PolicyStateStore {
  private readonly values = new Map<string, unknown>();
  private services: EngineServices | undefined;

  attach(services: EngineServices): void {
    this.services = services;
  }

  get<T>(key: PolicyStateKey<T>): T {
    let value = this.values.get(key.name) as T | undefined;
    if (value === undefined) {
      if (this.services === undefined) throw new Error('PolicyState used before attach()');
      value = key.create(this.services);
      this.values.set(key.name, value);
    }
    return value;
  }

  async close(): Promise<void> {
    for (const value of this.values.values()) if (isClosable(value)) await value.close();
    this.values.clear();
  }
}
