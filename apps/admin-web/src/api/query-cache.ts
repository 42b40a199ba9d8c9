import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api-error';

/** How long an answer is reused without asking again: going back to a page costs no request. */
const FRESH_FOR_MS = 15_000;

interface Entry {
  value: unknown;
  storedAt: number;
}

const entries = new Map<string, Entry>();

export interface QueryState<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
}

export interface Query<T> extends QueryState<T> {
  /** Forgets the answer and asks again (after a change made on this page). */
  reload: () => void;
}

/**
 * Server state for components: one request per key, answers kept for FRESH_FOR_MS so a page the
 * admin returns to renders at once. Server data lives here, never copied into stores.
 */
export function useQuery<T>(key: string, load: () => Promise<T>): Query<T> {
  const [generation, setGeneration] = useState(0);
  const reload = () => {
    entries.delete(key);
    setGeneration((n) => n + 1);
  };
  const cached = fresh(key);
  const [state, setState] = useState<QueryState<T> & { key: string }>({
    key,
    data: cached?.value as T | undefined,
    error: undefined,
    loading: cached === undefined,
  });
  useEffect(() => {
    const hit = fresh(key);
    if (hit !== undefined) {
      setState({ key, data: hit.value as T, error: undefined, loading: false });
      return;
    }
    let current = true;
    setState((previous) => ({ key, data: previous.data, error: undefined, loading: true }));
    load().then(
      (value) => {
        entries.set(key, { value, storedAt: Date.now() });
        if (current) setState({ key, data: value, error: undefined, loading: false });
      },
      (error: unknown) => {
        const apiError = error instanceof ApiError ? error : new ApiError(0, 'UNEXPECTED_ERROR', String(error));
        if (current) setState({ key, data: undefined, error: apiError, loading: false });
      },
    );
    return () => {
      current = false;
    };
    // `load` is a fresh closure each render; the key alone names what it loads.
  }, [key, generation]);
  return state.key === key ? { ...state, reload } : { data: undefined, error: undefined, loading: true, reload };
}

/** Forgets the answers whose key starts with one of the prefixes: after a change they are stale. */
export function invalidateQueries(...prefixes: string[]): void {
  for (const key of [...entries.keys()]) if (prefixes.some((prefix) => key.startsWith(prefix))) entries.delete(key);
}

/**
 * A list page's revision: part of its query keys, bumped after a change made on the page. The bump
 * also forgets every answer under `prefix`, so the page opened again within FRESH_FOR_MS (its
 * revision back at 0) never shows the list as it was before the change.
 */
export function useRevision(prefix: string): [revision: number, changed: () => void] {
  const [revision, setRevision] = useState(0);
  const changed = (): void => {
    invalidateQueries(prefix);
    setRevision((r) => r + 1);
  };
  return [revision, changed];
}

/** Forgets every answer: after sign-out nothing of the previous user's data may show. */
export function clearQueryCache(): void {
  entries.clear();
}

function fresh(key: string): Entry | undefined {
  const entry = entries.get(key);
  if (entry === undefined) return undefined;
  if (Date.now() - entry.storedAt > FRESH_FOR_MS) {
    entries.delete(key);
    return undefined;
  }
  return entry;
}
