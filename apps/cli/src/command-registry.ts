import type { CommandEntry } from './command';

/**
 * The subcommands, loaded on demand: `gateway start` installs its SIGHUP handler before the data
 * plane (and its YAML parser, logger, metrics) is even required. `help` lives in main.ts's reach
 * separately because it reads this list. A dynamic import() is resolved as ESM even from CommonJS,
 * hence the `.js` extensions that static imports here do not carry.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'start',
    summary: 'Run the gateway in the foreground (SIGHUP reloads proxy.yml, SIGTERM stops)',
    load: async () => (await import('./commands/start.command.js')).startCommand,
  },
  {
    name: 'init',
    summary: 'Write an example proxy.yml and a .env with freshly generated secrets',
    load: async () => (await import('./commands/init.command.js')).initCommand,
  },
  {
    name: 'config:validate',
    summary: 'Check a configuration file and list every error',
    load: async () => (await import('./commands/config-validate.command.js')).configValidateCommand,
  },
  {
    name: 'config:reload',
    summary: 'Show the route changes of a configuration and apply them to the running gateway',
    load: async () => (await import('./commands/config-reload.command.js')).configReloadCommand,
  },
  {
    name: 'migrate',
    summary: 'Apply pending database migrations (SQLite, or PostgreSQL with DATABASE_URL)',
    load: async () => (await import('./commands/migrate.command.js')).migrateCommand,
  },
  {
    name: 'status',
    summary: 'Show a running gateway: version, routes, configuration revision, health',
    load: async () => (await import('./commands/status.command.js')).statusCommand,
  },
  {
    name: 'routes:list',
    summary: 'List the routes of a running gateway (table, or --json)',
    load: async () => (await import('./commands/routes-list.command.js')).routesListCommand,
  },
  {
    name: 'logs',
    summary: 'Print recent log lines of a running gateway (--follow keeps printing)',
    load: async () => (await import('./commands/logs.command.js')).logsCommand,
  },
];

export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((entry) => entry.name === name);
}
