import type { RoundRobinBalancer } from '@gateway/testing';
import { startTraffic, type ProcessCluster } from './process-cluster';
import { eventually } from './stand-in-control-plane';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface RollingUpdateOutcome {
  /** Each data plane's exit code after its drain, in order. */
  exitCodes: Array<number | null>;
  sent: number;
  failures: string[];
}

/**
 * A rolling update under steady load: three request loops through the balancer while each data
 * plane in turn gets SIGTERM, drains, exits and starts again, the next one only once the balancer
 * has the restarted one back in rotation. `beforeEach` runs before each plane's SIGTERM.
 */
export async function rollDataPlanesUnderLoad(
  cluster: ProcessCluster,
  balancer: RoundRobinBalancer,
  urlPath: string,
  expectedBody: string,
  beforeEach?: (index: number) => Promise<void>,
): Promise<RollingUpdateOutcome> {
  const entry = { url: balancer.url };
  const traffic = startTraffic([entry, entry, entry], urlPath, expectedBody);
  const exitCodes: Array<number | null> = [];
  await sleep(500);
  const planes = cluster.dataPlanes.length;
  for (let index = 0; index < planes; index += 1) {
    await beforeEach?.(index);
    exitCodes.push((await cluster.drainAndRestartDataPlane(index)).exitCode);
    await eventually(() => balancer.ready().length === planes, `data plane ${index} is back in rotation`, 15_000);
    await sleep(300);
  }
  return { exitCodes, ...(await traffic.stop()) };
}
