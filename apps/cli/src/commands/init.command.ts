import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { nonEmpty, parseCommandArgs } from '../cli-args';
import { CommandFailure, EXIT, type Command, type CommandContext } from '../command';
import { displayPath } from '../gateway-paths';
import { chooseSecrets, secretsDifferingFromStored, type SecretOrigin } from '../init-secrets';
import { EXAMPLE_PROXY_YML, PLACEHOLDERS, renderDotEnv } from '../init-templates';

const OPTIONS = {
  dir: { type: 'string', valueName: 'DIR', description: 'Directory to write into, created if missing (default: the current directory)' },
  force: { type: 'boolean', description: 'Write the example proxy.yml and .env over existing ones (.env keeps its secrets; the old one is saved as .env.bak)' },
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
    'and .env (mode 0600) with JWT_SECRET, CLUSTER_TOKEN and API_KEY_SECRET and commented',
    'placeholders for ADMIN_EMAIL, DATABASE_URL, REDIS_URL and ALLOWED_ORIGINS.',
    'A file that exists is kept as it is (and said so) unless --force is given. Secrets are never',
    'replaced: with --force the new .env keeps the old one\'s values (the old file is saved as',
    '.env.bak), and a secret an earlier start generated in the data directory is written into a new',
    '.env rather than a new one, so API keys and sessions made before keep working. Secret values',
    'are never printed.',
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
    const dataDir = path.resolve(context.cwd, nonEmpty(values['data-dir'], 'data-dir', 'init') ?? context.env['GATEWAY_DATA_DIR'] ?? path.join(dir, '.gateway'));
    const shown = (file: string): string => displayPath(context.cwd, file);

    await mkdir(dir, { recursive: true });
    const configFile = path.join(dir, 'proxy.yml');
    if (await writeUnlessKept(configFile, EXAMPLE_PROXY_YML, 0o644, force)) {
      context.out(`Wrote ${shown(configFile)}: an example configuration (2 upstreams, 3 routes)`);
    } else {
      context.out(`Kept ${shown(configFile)}: it exists (--force writes the example over it)`);
    }
    await writeDotEnv(context, path.join(dir, '.env'), dataDir, force);

    if (values['skip-admin'] !== true) {
      const email = nonEmpty(values['admin-email'], 'admin-email', 'init') ?? DEFAULT_ADMIN_EMAIL;
      await createFirstAdmin(context, dataDir, email);
    }
    context.out('');
    context.out('Next:');
    if (dir !== context.cwd) context.out(`  cd ${shown(dir)}`);
    context.out('  gateway config:validate');
    context.out('  gateway start');
    return EXIT.ok;
  },
};

/**
 * Writes `file` unless it exists and `force` is off; false when it was kept. 'wx' also closes the
 * gap between another process creating the file and this write: that file is kept too.
 */
async function writeUnlessKept(file: string, content: string, mode: number, force: boolean): Promise<boolean> {
  try {
    await writeFile(file, content, { flag: force ? 'w' : 'wx', mode });
  } catch (error) {
    if (!force && (error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  // mode only applies when a file is created; an overwritten .env may have been wider.
  await chmod(file, mode);
  return true;
}

/**
 * An existing .env is kept as it is; with --force it is rewritten from the template but keeps its
 * secrets (and the previous file is saved beside it), and a new one takes the secrets an earlier
 * start generated into the data dir, so what they signed keeps working.
 */
async function writeDotEnv(context: CommandContext, envFile: string, dataDir: string, force: boolean): Promise<void> {
  const shown = (file: string): string => displayPath(context.cwd, file);
  const previous = await readIfExists(envFile);
  if (previous !== undefined && !force) {
    context.out(`Kept ${shown(envFile)}: it exists; its secrets and settings stay as they are`);
    for (const { name, file } of secretsDifferingFromStored(previous, dataDir)) {
      context.err(`gateway init: ${name} in ${shown(envFile)} differs from the one an earlier start kept in ${shown(file)}; gateway start will refuse it until one of them goes (docs/cli.md)`);
    }
    return;
  }
  const secrets = chooseSecrets(previous, dataDir);
  if (previous !== undefined) await writeFile(`${envFile}.bak`, previous, { mode: 0o600 });
  const values = new Map(secrets.map((secret) => [secret.name, secret.value]));
  if (!(await writeUnlessKept(envFile, renderDotEnv((name) => values.get(name) as string), 0o600, force))) {
    context.out(`Kept ${shown(envFile)}: it appeared while init ran; its secrets and settings stay as they are`);
    return;
  }
  context.out(`Wrote ${shown(envFile)} (mode 0600) with placeholders for ${PLACEHOLDERS.join(', ')}${previous === undefined ? '' : `; the previous file is saved as ${shown(`${envFile}.bak`)}`}`);
  for (const secret of secrets) context.out(`  ${secret.name}: ${describeOrigin(secret.origin, shown)}`);
}

function describeOrigin(origin: SecretOrigin, shown: (file: string) => string): string {
  switch (origin.kind) {
    case 'env-file':
      return 'kept from the previous .env';
    case 'data-dir':
      return `the one an earlier start generated in ${shown(origin.file)} (what it signed keeps working)`;
    case 'new':
      return 'new';
  }
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Creates the admin and prints its password once; an existing account is reported, not changed. */
async function createFirstAdmin(context: CommandContext, dataDir: string, email: string): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { createAdmin, EmailTakenError } = require('@gateway/control-plane/create-admin') as typeof import('@gateway/control-plane/create-admin');
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
