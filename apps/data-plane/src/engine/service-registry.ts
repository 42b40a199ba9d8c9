/**
 * The generic contract between policies and the composition root. A policy folder declares the
 * services it needs as typed keys (`serviceKey<ResponseCache>('responseCache')`), start.ts provides
 * a value for each, and the engine passes the registry along without knowing any of them: a new
 * policy never edits the engine. Policies resolve their services when a route compiles, so the hot
 * path holds direct references and never looks a key up.
 */
export interface ServiceKey<T> {
  readonly name: string;
  /** Phantom: ties the key to its value type; never set. */
  readonly type?: () => T;
}

export function serviceKey<T>(name: string): ServiceKey<T> {
  return { name };
}

/** What policies see: read-only lookups. */
export interface ServiceLookup {
  /** The provided value; throws when the composition root did not wire the key (a bug, found at boot). */
  get<T>(key: ServiceKey<T>): T;
  /** The provided value, or undefined for services that are optional (telemetry off). */
  find<T>(key: ServiceKey<T>): T | undefined;
}

export class ServiceNotWiredError extends Error {
  constructor(name: string) {
    super(`service '${name}' was not provided by the composition root`);
    this.name = 'ServiceNotWiredError';
  }
}

export class ServiceRegistry implements ServiceLookup {
  private readonly values = new Map<string, unknown>();

  provide<T>(key: ServiceKey<T>, value: T): this {
    if (this.values.has(key.name)) throw new Error(`service '${key.name}' provided twice`);
    this.values.set(key.name, value);
    return this;
  }

  get<T>(key: ServiceKey<T>): T {
    if (!this.values.has(key.name)) throw new ServiceNotWiredError(key.name);
    return this.values.get(key.name) as T;
  }

  find<T>(key: ServiceKey<T>): T | undefined {
    return this.values.get(key.name) as T | undefined;
  }

  /** Names of the keys in `needed` that were not provided (start.ts refuses to boot with any). */
  missing(needed: Iterable<ServiceKey<unknown>>): string[] {
    const out: string[] = [];
    for (const key of needed) if (!this.values.has(key.name)) out.push(key.name);
    return out;
  }
}
