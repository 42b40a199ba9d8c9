import path from 'node:path';
import { createHttpSnapshotFetcher } from '@gateway/data-plane/cluster-source';
import type { RunningDataPlane } from '@gateway/data-plane/data-plane-options';
import { start } from '@gateway/data-plane/start';
import type { MessageBus } from '@gateway/events';
import { makeTempDir } from '@gateway/testing';

/** A real data plane (in-process start()) following a control plane: its bus, its URL, its data dir. */
export interface FollowingDataPlane<B extends MessageBus> {
  plane: RunningDataPlane;
  bus: B;
  url: string;
  /** Closes the data plane, then its bus, and removes its data dir. */
  close(): Promise<void>;
}

/**
 * Starts a data plane that follows the control plane at `controlPlaneUrl` (its HTTP snapshot
 * endpoint, `clusterToken`) and receives changes and commands on `bus`, as `--role data-plane`
 * does; no proxy.yml. `env`: the data plane's environment (GATEWAY_CA_DIRS...), default process.env.
 */
export async function startFollowingDataPlane<B extends MessageBus>(
  bus: B,
  controlPlaneUrl: string,
  clusterToken: string,
  instanceId?: string,
  env?: NodeJS.ProcessEnv,
): Promise<FollowingDataPlane<B>> {
  const dir = makeTempDir('following-dp-');
  try {
    const plane = await start({
      configPath: path.join(dir.path, 'absent-proxy.yml'),
      dataDir: dir.path,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      ...(instanceId === undefined ? {} : { instanceId }),
      ...(env === undefined ? {} : { env }),
      routeSource: { kind: 'control-plane', bus, fetchSnapshot: createHttpSnapshotFetcher(controlPlaneUrl, clusterToken) },
    });
    return {
      plane,
      bus,
      url: `http://127.0.0.1:${plane.port}`,
      close: async () => {
        await plane.close();
        await bus.close();
        dir.remove();
      },
    };
  } catch (error) {
    dir.remove();
    throw error;
  }
}
