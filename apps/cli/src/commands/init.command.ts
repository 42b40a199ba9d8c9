import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { nonEmpty, parseCommandArgs } from '../cli-args';
import { CommandFailure, EXIT, type Command, type CommandContext } from '../command';
import { displayPath } from '../gateway-paths';
import { EXAMPLE_PROXY_YML, GENERATED_SECRETS, PLACEHOLDERS, renderDotEnv } from '../init-templates';

const OPTIONS = {
  dir: { type: 'string', valueName: 'DIR', description: 'Directory to write into, created if missing (default: the current directory)' },
  force: { type: 'boolean', description: 'Overwrite an existing proxy.yml and .env' },
  'admin-email': { type: 'string', valueName: 'EMAIL', description: 'Email of the first admin account (default: admin@localhost)' },
  'data-dir': { type: 'string', valueName: 'DIR', description: 'State directory holding the SQLite database (default: $GATEWAY_DATA_DIR, else DIR/.gateway)' },
  'skip-admin': { type: 'boolean', description: 'Do not create an admin account' },
} as const;

const DEFAULT_ADMIN_EMAIL = 'admin@localhost';

export const initCommand: Command = {
  name: 'init',
  usage: 'gateway init [--dir DIR] [--force] [--admin-email EMAIL] [--data-dir DIR] [--skip-admin]',
  description: [
    'Writes proxy.yml, a commented example configuration (upstreams, routes with rate limits),',
    'and .env (mode 0600) with new random JWT_SECRET, CLUSTER_TOKEN and API_KEY_SECRET values',
    'and commented placeholders for ADMIN_EMAIL, DATABASE_URL, REDIS_URL and ALLOWED_ORIGINS.',
    'Refuses to overwrite either file unless --force is given. Secret values are never printed.',
    '',
    'Then creates the first admin account in the database (SQLite in the data directory, or',
    '$DATABASE_URL), migrating it first, and prints its generated password once: it is stored only',
    'as a scrypt hash. An existing account with that email is left as it is.',
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
    if (values['skip-admin'] !== true) {
      const email = nonEmpty(values['admin-email'], 'admin-email', 'init') ?? DEFAULT_ADMIN_EMAIL;
      const dataDir = path.resolve(context.cwd, nonEmpty(values['data-dir'], 'data-dir', 'init') ?? context.env['GATEWAY_DATA_DIR'] ?? path.join(dir, '.gateway'));
      await createFirstAdmin(context, dataDir, email);
    }
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

/** Creates the admin and prints its password once; an existing account is reported, not changed. */
async function createFirstAdmin(context: CommandContext, dataDir: string, email: string): Promise<void> {
  const { createAdmin, EmailTakenError } = await import('@gateway/control-plane/create-admin');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  try {
    const admin = await createAdmin({ dataDir, env: context.env }, email);
    context.out(`Created the admin account ${admin.email} with the password: ${admin.password}`);
    context.out('  It is shown only now (stored as a hash): keep it in your password manager.');
  } catch (error) {
    if (error instanceof EmailTakenError) {
      context.out(`The account ${email} already exists; it was left as it is (no new password).`);
      return;
    }
    throw new CommandFailure(`gateway init: could not create the admin account: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
