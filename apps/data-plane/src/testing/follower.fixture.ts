import path from 'node:path';
import type { MessageBus, RouteSnapshot } from '@gateway/events';
import { normalizeRoute, type Route } from '@gateway/route-model';
import type { DataPlaneOptions, RunningDataPlane } from '../data-plane-options';
import { start } from '../start';

/** A route as the control plane's API would store it; throws with the field errors when `raw` is invalid. */
export function apiRoute(raw: Record<string, unknown>): Route {
  const result = normalizeRoute(raw, { source: 'api' });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

/** What a data plane that follows a control plane needs in a test: a bus, a snapshot and a directory. */
export interface FollowerFixture {
  bus: MessageBus;
  snapshot: RouteSnapshot;
  dataDir: string;
  instanceId: string;
}

/** Starts a real data plane on an ephemeral loopback port that takes its routes from `snapshot` over `bus`. */
export function startFollower(fixture: FollowerFixture, extra: Partial<DataPlaneOptions> = {}): Promise<RunningDataPlane> {
  return start({
    configPath: path.join(fixture.dataDir, 'absent.yml'),
    dataDir: fixture.dataDir,
    host: '127.0.0.1',
    port: 0,
    logLevel: 'silent',
    instanceId: fixture.instanceId,
    routeSource: { kind: 'control-plane', bus: fixture.bus, fetchSnapshot: async () => fixture.snapshot },
    ...extra,
  });
}
