import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@gateway/testing';
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
  /** Newest file in the planes' and the CLI's dist: which build of the gateway was measured. */
  readonly gatewayBuiltAt: string | null;
}

function newestMtime(dir: string): number {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

function gatewayBuiltAt(): string | null {
  const newest = Math.max(...['apps/data-plane/dist', 'apps/control-plane/dist', 'apps/cli/dist'].map((d) => newestMtime(path.join(REPO_ROOT, d))));
  return newest > 0 ? new Date(newest).toISOString() : null;
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
    gatewayBuiltAt: gatewayBuiltAt(),
  };
}

/** The bench reads /proc/<pid>/stat: Linux only. */
export function checkPlatform(): void {
  if (!existsSync('/proc/self/stat')) throw new Error('the bench reads CPU time from /proc/<pid>/stat: it runs on Linux only');
}
