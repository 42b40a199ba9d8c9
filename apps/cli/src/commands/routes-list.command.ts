import type { Route } from '@gateway/route-model';
import { nonEmpty, parseCommandArgs } from '../cli-args';
import { CommandFailure, EXIT, type Command } from '../command';
import { AdminSession } from '../admin-session';
import { describeAnswer, resolveGatewayUrl } from '../gateway-client';
import { loadDotEnv, resolveGatewayPaths } from '../gateway-paths';
import { formatTable } from '../text-table';

const OPTIONS = {
  url: { type: 'string', valueName: 'URL', description: 'The gateway to ask (default: $GATEWAY_URL, else the address recorded in <data-dir>/gateway.url)' },
  'data-dir': { type: 'string', valueName: 'DIR', description: "The running gateway's data directory (default: $GATEWAY_DATA_DIR, else ./.gateway)" },
  token: { type: 'string', valueName: 'JWT', description: 'Admin token (default: $GATEWAY_TOKEN, else a login with $ADMIN_EMAIL / $ADMIN_PASSWORD)' },
  deleted: { type: 'boolean', description: 'List soft-deleted routes instead' },
  json: { type: 'boolean', description: 'Print the routes as a JSON array (canonical form)' },
} as const;

/** The API's page size limit (decision 5). */
const PAGE_SIZE = 100;

export const routesListCommand: Command = {
  name: 'routes:list',
  usage: 'gateway routes:list [--json] [--deleted] [--url URL] [--token JWT] [--data-dir DIR]',
  description: [
    'Lists every route the control plane holds (API and proxy.yml routes) through GET /api/routes,',
    'page by page, as a table: id, path, methods, upstream, enabled, priority, source.',
    'Needs an admin: --token, $GATEWAY_TOKEN, or $ADMIN_EMAIL and $ADMIN_PASSWORD to log in (the',
    'token is kept in <data-dir>/cli-tokens.json, mode 0600, and reused until it expires or is refused).',
  ],
  options: OPTIONS,
  examples: ['gateway routes:list', 'gateway routes:list --json | jq ".[].path"', 'gateway routes:list --deleted'],
  run: async (argv, context) => {
    const { values } = parseCommandArgs('routes:list', argv, OPTIONS);
    loadDotEnv(context);
    const paths = resolveGatewayPaths(context, { dataDir: nonEmpty(values['data-dir'], 'data-dir', 'routes:list') });
    const base = await resolveGatewayUrl(context, nonEmpty(values.url, 'url', 'routes:list'), paths.dataDir);
    const session = await AdminSession.open(context, base, nonEmpty(values.token, 'token', 'routes:list'), paths.dataDir);

    const routes: Array<Route & { deletedAt?: string }> = [];
    for (let offset = 0; ; offset += PAGE_SIZE) {
      const query = `/api/routes?limit=${PAGE_SIZE}&offset=${offset}${values.deleted === true ? '&deleted=true' : ''}`;
      const answer = await session.get(query);
      const body = answer.body as { success?: boolean; data?: unknown; pagination?: { hasMore?: boolean } } | undefined;
      if (answer.status !== 200 || body?.success !== true || !Array.isArray(body.data)) {
        throw new CommandFailure(`GET /api/routes failed: ${describeAnswer(answer)}`);
      }
      routes.push(...(body.data as Route[]));
      if (body.pagination?.hasMore !== true) break;
    }

    if (values.json === true) {
      context.out(JSON.stringify(routes, null, 2));
      return EXIT.ok;
    }
    if (routes.length === 0) {
      context.out(values.deleted === true ? 'No deleted routes.' : 'No routes.');
      return EXIT.ok;
    }
    const rows = routes.map((route) => [
      route.id,
      route.path,
      route.methods === undefined ? 'ALL' : route.methods.join(','),
      route.upstream,
      route.enabled ? 'yes' : 'no',
      String(route.priority),
      route.source ?? 'api',
    ]);
    formatTable(['ID', 'PATH', 'METHODS', 'UPSTREAM', 'ENABLED', 'PRIORITY', 'SOURCE'], rows).forEach((line) => context.out(line));
    return EXIT.ok;
  },
};
