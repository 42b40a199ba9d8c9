import type { CommandEntry } from './command';

/**
 * The subcommands, loaded on demand: `gateway start` installs its SIGHUP handler before the data
 * plane (and its YAML parser, logger, metrics) is even required. `help` lives in main.ts's reach
 * separately because it reads this list. Loaded with require(), not import(): a dynamic import()
 * brings in Node's ESM loader and lexes each module it loads for its exports, ~40 ms of CPU before
 * `gateway start` has read its configuration (docs/data-plane.md, "Start-up at 10,000 routes,
 * fourth pass"), and the commands are CommonJS either way.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'start',
    summary: 'Run the gateway in the foreground (SIGHUP reloads proxy.yml, SIGTERM stops)',
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): see above
    load: async () => (require('./commands/start.command.js') as typeof import('./commands/start.command.js')).startCommand,
  },
  {
    name: 'init',
    summary: 'Write an example proxy.yml and a .env with freshly generated secrets',
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): see above
    load: async () => (require('./commands/init.command.js') as typeof import('./commands/init.command.js')).initCommand,
  },
  {
    name: 'config:validate',
    summary: 'Check a configuration file and list every error',
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): see above
    load: async () => (require('./commands/config-validate.command.js') as typeof import('./commands/config-validate.command.js')).configValidateCommand,
  },
  {
    name: 'config:reload',
    summary: 'Show the route changes of a configuration and apply them to the running gateway',
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): see above
    load: async () => (require('./commands/config-reload.command.js') as typeof import('./commands/config-reload.command.js')).configReloadCommand,
  },
  {
    name: 'migrate',
    summary: 'Apply pending database migrations (SQLite, or PostgreSQL with DATABASE_URL)',
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): see above
    load: async () => (require('./commands/migrate.command.js') as typeof import('./commands/migrate.command.js')).migrateCommand,
  },
  {
    name: 'status',
    summary: 'Show a running gateway: version, routes, configuration revision, health',
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): see above
    load: async () => (require('./commands/status.command.js') as typeof import('./commands/status.command.js')).statusCommand,
  },
  {
    name: 'routes:list',
    summary: 'List the routes of a running gateway (table, or --json)',
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): see above
    load: async () => (require('./commands/routes-list.command.js') as typeof import('./commands/routes-list.command.js')).routesListCommand,
  },
  {
    name: 'logs',
    summary: 'Print recent log lines of a running gateway (--follow keeps printing)',
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): see above
    load: async () => (require('./commands/logs.command.js') as typeof import('./commands/logs.command.js')).logsCommand,
  },
];

export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((entry) => entry.name === name);
}
