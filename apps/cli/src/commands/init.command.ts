import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { nonEmpty, parseCommandArgs } from '../cli-args';
import { EXIT, type Command } from '../command';
import { displayPath } from '../gateway-paths';
import { EXAMPLE_PROXY_YML, GENERATED_SECRETS, PLACEHOLDERS, renderDotEnv } from '../init-templates';

const OPTIONS = {
  dir: { type: 'string', valueName: 'DIR', description: 'Directory to write into, created if missing (default: the current directory)' },
  force: { type: 'boolean', description: 'Overwrite an existing proxy.yml and .env' },
} as const;

export const initCommand: Command = {
  name: 'init',
  usage: 'gateway init [--dir DIR] [--force]',
  description: [
    'Writes proxy.yml, a commented example configuration (upstreams, routes with rate limits),',
    'and .env (mode 0600) with new random JWT_SECRET, CLUSTER_TOKEN and API_KEY_SECRET values',
    'and commented placeholders for ADMIN_EMAIL, DATABASE_URL, REDIS_URL and ALLOWED_ORIGINS.',
    'Refuses to overwrite either file unless --force is given. Secret values are never printed.',
  ],
  options: OPTIONS,
  examples: ['gateway init', 'gateway init --dir deploy/gateway', 'gateway init --force'],
  run: async (argv, context) => {
    const { values } = parseCommandArgs('init', argv, OPTIONS);
    const dir = path.resolve(context.cwd, nonEmpty(values.dir, 'dir', 'init') ?? '.');
    const force = values.force === true;
    const configFile = path.join(dir, 'proxy.yml');
    const envFile = path.join(dir, '.env');

    if (!force) {
      const existing = [];
      for (const file of [configFile, envFile]) if (await exists(file)) existing.push(file);
      if (existing.length > 0) {
        for (const file of existing) context.err(`gateway init: ${displayPath(context.cwd, file)} already exists; use --force to overwrite it`);
        return EXIT.failure;
      }
    }

    await mkdir(dir, { recursive: true });
    // 'wx' also closes the gap between the check above and the write.
    const flag = force ? 'w' : 'wx';
    await writeFile(configFile, EXAMPLE_PROXY_YML, { flag, mode: 0o644 });
    await writeFile(envFile, renderDotEnv(), { flag, mode: 0o600 });
    // mode only applies when a file is created; an overwritten .env may have been wider.
    await chmod(envFile, 0o600);

    context.out(`Wrote ${displayPath(context.cwd, configFile)}: an example configuration (2 upstreams, 3 routes)`);
    context.out(`Wrote ${displayPath(context.cwd, envFile)} (mode 0600): new ${GENERATED_SECRETS.join(', ')}; placeholders for ${PLACEHOLDERS.join(', ')}`);
    context.out('');
    context.out('Next:');
    if (dir !== context.cwd) context.out(`  cd ${displayPath(context.cwd, dir)}`);
    context.out('  gateway config:validate');
    context.out('  gateway start');
    return EXIT.ok;
  },
};

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
