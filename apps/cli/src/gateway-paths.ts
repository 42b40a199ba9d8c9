import { statSync } from 'node:fs';
import path from 'node:path';
import { CommandFailure, type CommandContext } from './command';

/** Where a command finds proxy.yml and the data directory, flags first, then the environment. */
export interface GatewayPaths {
  /** Absolute path of proxy.yml. */
  configPath: string;
  /** The config path as the user would write it (relative to the cwd when inside it). */
  configLabel: string;
  /** Absolute path of the data directory. */
  dataDir: string;
}

export const DEFAULT_CONFIG_FILE = 'proxy.yml';
export const DEFAULT_DATA_DIR = '.gateway';

/**
 * Loads `.env` from the working directory when there is one. process.loadEnvFile never replaces
 * a variable that is already set, so the real environment always wins over the file.
 * `start` and the `config:*` commands all call it, so they agree on GATEWAY_CONFIG and
 * GATEWAY_DATA_DIR.
 */
export function loadDotEnv(context: CommandContext): void {
  const file = path.join(context.cwd, '.env');
  const stats = statSync(file, { throwIfNoEntry: false });
  if (stats === undefined) return;
  if (!stats.isFile()) throw new CommandFailure(`cannot load ${file}: not a regular file`);
  try {
    process.loadEnvFile(file);
  } catch (error) {
    throw new CommandFailure(`cannot load ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
}

export function resolveGatewayPaths(context: CommandContext, flags: { config?: string; dataDir?: string }): GatewayPaths {
  const config = flags.config ?? envValue(context, 'GATEWAY_CONFIG') ?? DEFAULT_CONFIG_FILE;
  const dataDir = flags.dataDir ?? envValue(context, 'GATEWAY_DATA_DIR') ?? DEFAULT_DATA_DIR;
  const configPath = path.resolve(context.cwd, config);
  return { configPath, configLabel: displayPath(context.cwd, configPath), dataDir: path.resolve(context.cwd, dataDir) };
}

/** A path relative to the cwd when it lies inside it, absolute otherwise. */
export function displayPath(cwd: string, absolute: string): string {
  const relative = path.relative(cwd, absolute);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : absolute;
}

function envValue(context: CommandContext, name: string): string | undefined {
  const value = context.env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}
