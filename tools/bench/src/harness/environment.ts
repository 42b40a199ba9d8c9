import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { clockTicksPerSecond } from './cpu';

export interface MachineInfo {
  readonly cores: number;
  readonly cpuModel: string;
  readonly node: string;
  readonly platform: string;
  readonly kernel: string;
  readonly autocannon: string;
  readonly clockTicksPerSecond: number;
  readonly loadAverageAtStart: readonly number[];
}

function autocannonVersion(): string {
  try {
    return (JSON.parse(readFileSync(require.resolve('autocannon/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cores: os.availableParallelism(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    kernel: os.release(),
    autocannon: autocannonVersion(),
    clockTicksPerSecond: clockTicksPerSecond(),
    loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** The bench reads /proc/<pid>/stat: Linux only. */
export function checkPlatform(): void {
  if (!existsSync('/proc/self/stat')) throw new Error('the bench reads CPU time from /proc/<pid>/stat: it runs on Linux only');
}
