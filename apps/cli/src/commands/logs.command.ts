import { setTimeout as sleep } from 'node:timers/promises';
import { nonEmpty, parseCommandArgs, UsageError } from '../cli-args';
import { CommandFailure, EXIT, type Command } from '../command';
import { AdminSession } from '../admin-session';
import { describeAnswer, resolveGatewayUrl } from '../gateway-client';
import { loadDotEnv, resolveGatewayPaths } from '../gateway-paths';

const OPTIONS = {
  follow: { type: 'boolean', description: 'Keep printing new lines as they arrive (Ctrl-C stops)' },
  limit: { type: 'string', valueName: 'N', description: 'How many recent lines, 1..1000 (default 100)' },
  level: { type: 'string', valueName: 'LEVEL', description: 'Lowest level shown: debug, info, warn, error (default: all kept)' },
  url: { type: 'string', valueName: 'URL', description: 'The gateway to ask (default: $GATEWAY_URL, else the address recorded in <data-dir>/gateway.url)' },
  'data-dir': { type: 'string', valueName: 'DIR', description: "The running gateway's data directory (default: $GATEWAY_DATA_DIR, else ./.gateway)" },
  token: { type: 'string', valueName: 'JWT', description: 'Admin token (default: $GATEWAY_TOKEN, else a login with $ADMIN_EMAIL / $ADMIN_PASSWORD)' },
} as const;

const FOLLOW_INTERVAL_MS = 1000;
const LEVELS = ['debug', 'info', 'warn', 'error'];

interface LogLine {
  time?: string;
}

export const logsCommand: Command = {
  name: 'logs',
  usage: 'gateway logs [--follow] [--limit N] [--level LEVEL] [--url URL] [--token JWT] [--data-dir DIR]',
  description: [
    'Prints the recent structured log lines of a running gateway (GET /api/logs), one JSON object',
    'per line, oldest first: both planes in one process; with the planes apart, the control',
    "plane's lines and its live data planes' (each naming its instance). With --follow it keeps",
    'asking for lines newer than the last one printed, once a second. Needs an admin: --token,',
    '$GATEWAY_TOKEN, or $ADMIN_EMAIL and $ADMIN_PASSWORD to log in (the token is kept in',
    '<data-dir>/cli-tokens.json and reused).',
  ],
  options: OPTIONS,
  examples: ['gateway logs', 'gateway logs --follow --level warn', 'gateway logs --limit 20 | jq .message'],
  run: async (argv, context) => {
    const { values } = parseCommandArgs('logs', argv, OPTIONS);
    const limit = parseLimit(values.limit);
    const level = values.level;
    if (level !== undefined && !LEVELS.includes(level)) throw new UsageError(`invalid value for --level: '${level}' (expected one of ${LEVELS.join(', ')})`, 'logs');
    loadDotEnv(context);
    const paths = resolveGatewayPaths(context, { dataDir: nonEmpty(values['data-dir'], 'data-dir', 'logs') });
    const base = await resolveGatewayUrl(context, nonEmpty(values.url, 'url', 'logs'), paths.dataDir);
    const session = await AdminSession.open(context, base, nonEmpty(values.token, 'token', 'logs'), paths.dataDir);

    let since: string | undefined;
    for (;;) {
      const query = new URLSearchParams({ limit: String(limit) });
      if (level !== undefined) query.set('level', level);
      if (since !== undefined) query.set('since', since);
      const lines = await fetchLines(session, `/api/logs?${query.toString()}`);
      for (const line of lines) context.out(JSON.stringify(line));
      since = lines.at(-1)?.time ?? since;
      if (values.follow !== true) return EXIT.ok;
      await sleep(FOLLOW_INTERVAL_MS);
    }
  },
};

async function fetchLines(session: AdminSession, pathAndQuery: string): Promise<LogLine[]> {
  const answer = await session.get(pathAndQuery);
  const body = answer.body as { success?: boolean; data?: unknown } | undefined;
  if (answer.status !== 200 || body?.success !== true || !Array.isArray(body.data)) {
    throw new CommandFailure(`GET /api/logs failed: ${describeAnswer(answer)}`);
  }
  return body.data as LogLine[];
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return 100;
  const value = /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < 1 || value > 1000) throw new UsageError(`invalid value for --limit: '${raw}' (expected an integer from 1 to 1000)`, 'logs');
  return value;
}
