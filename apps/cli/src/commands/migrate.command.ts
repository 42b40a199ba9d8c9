import { mkdir } from 'node:fs/promises';
import { nonEmpty, parseCommandArgs } from '../cli-args';
import { CommandFailure, EXIT, type Command } from '../command';
import { loadDotEnv, resolveGatewayPaths } from '../gateway-paths';
import { plural } from '../plural';

const OPTIONS = {
  'data-dir': { type: 'string', valueName: 'DIR', description: 'State directory holding the SQLite database (default: $GATEWAY_DATA_DIR, else ./.gateway)' },
} as const;

export const migrateCommand: Command = {
  name: 'migrate',
  usage: 'gateway migrate [--data-dir DIR]',
  description: [
    'Applies the pending database migrations of the control plane and lists them: PostgreSQL when',
    '$DATABASE_URL is set (an advisory lock makes concurrent runs apply each migration once), else',
    'the SQLite file in the data directory. `gateway start` migrates by itself; this command is for',
    'deployments that migrate before rolling out. Nothing to apply is not an error.',
  ],
  options: OPTIONS,
  examples: ['gateway migrate', 'DATABASE_URL=postgres://gateway@db/gateway gateway migrate'],
  run: async (argv, context) => {
    const { values } = parseCommandArgs('migrate', argv, OPTIONS);
    loadDotEnv(context);
    const paths = resolveGatewayPaths(context, { dataDir: nonEmpty(values['data-dir'], 'data-dir', 'migrate') });
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
    const { migrate } = require('@gateway/control-plane/migrate') as typeof import('@gateway/control-plane/migrate');
    let applied: string[];
    try {
      await mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
      applied = await migrate({ dataDir: paths.dataDir, env: context.env });
    } catch (error) {
      throw new CommandFailure(`gateway migrate: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const target = context.env['DATABASE_URL'] ? 'PostgreSQL ($DATABASE_URL)' : `SQLite in ${paths.dataDir}`;
    if (applied.length === 0) {
      context.out(`Database (${target}) is up to date: no migration to apply.`);
    } else {
      context.out(`Applied ${plural(applied.length, 'migration')} to ${target}:`);
      for (const name of applied) context.out(`  ${name}`);
    }
    return EXIT.ok;
  },
};
