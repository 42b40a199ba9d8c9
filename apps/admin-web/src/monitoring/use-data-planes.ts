import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/api-client';
import type { DataPlaneReport } from '../api/api-types';

/** How often the list of data planes is asked again: planes come and go rarely; their age ticks with the stream. */
const REFRESH_MS = 15_000;

/** GET /api/monitoring/data-planes while the page is shown: at most 4 requests a minute. */
export function useDataPlanes(): { planes: DataPlaneReport[] | undefined; error: string | undefined } {
  const [state, setState] = useState<{ planes: DataPlaneReport[] | undefined; error: string | undefined }>({ planes: undefined, error: undefined });
  useEffect(() => {
    let current = true;
    const load = (): void => {
      api.dataPlanes().then(
        (planes) => current && setState({ planes, error: undefined }),
        (error: unknown) => current && setState((previous) => ({ planes: previous.planes, error: error instanceof Error ? error.message : String(error) })),
      );
    };
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, []);
  return state;
}
