import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { CommandFailure, type CommandContext } from './command';
import { displayPath } from './gateway-paths';

/** `gateway start` writes the address it listens on here, so other commands can find it. */
export const URL_FILE = 'gateway.url';

/** Every call to a running gateway is bounded: a hung gateway must not hang the CLI. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Answers are small JSON documents; anything larger is a mistake, not something to buffer. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export interface GatewayAnswer {
  status: number;
  body: unknown;
}

/**
 * Where the running gateway listens: `--url`, else $GATEWAY_URL, else the address `gateway start`
 * recorded in its data directory. A wildcard listen address (0.0.0.0, ::) is reached on loopback.
 */
export async function resolveGatewayUrl(context: CommandContext, flag: string | undefined, dataDir: string): Promise<URL> {
  const explicit = flag ?? nonBlank(context.env['GATEWAY_URL']);
  if (explicit !== undefined) return parseUrl(explicit, flag !== undefined ? '--url' : 'GATEWAY_URL');
  const file = path.join(dataDir, URL_FILE);
  let recorded: string;
  try {
    recorded = (await readFile(file, 'utf8')).trim();
  } catch {
    throw new CommandFailure(`cannot find a running gateway: no ${displayPath(context.cwd, file)} (is it started with this --data-dir?); pass --url or set GATEWAY_URL`);
  }
  return parseUrl(recorded, displayPath(context.cwd, file));
}

/** The URL a client should use for a server listening on host:port. */
export function reachableUrl(host: string, port: number): string {
  const loopback = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${loopback.includes(':') ? `[${loopback}]` : loopback}:${port}`;
}

export async function requestJson(base: URL, method: string, pathAndQuery: string, options: { token?: string; body?: unknown } = {}): Promise<GatewayAnswer> {
  const target = new URL(pathAndQuery, base);
  const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<GatewayAnswer>((resolve, reject) => {
    const request = client.request(target, { method, headers, timeout: REQUEST_TIMEOUT_MS }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          request.destroy(new Error(`the answer of ${target.pathname} exceeds ${MAX_ANSWER_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text === '' ? undefined : (JSON.parse(text) as unknown);
        } catch {
          // not JSON: handed back as text, the caller says what it expected
        }
        resolve({ status: response.statusCode ?? 0, body });
      });
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer from ${target.origin} within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    request.on('error', (error) => reject(new CommandFailure(`cannot reach the gateway at ${target.origin}: ${describe(error)}`, { cause: error })));
    request.end(payload);
  });
}

/** The `data` of a `{success: true, data}` envelope, or undefined. */
export function envelopeData(answer: GatewayAnswer): unknown {
  const body = answer.body as { success?: unknown; data?: unknown } | undefined;
  return body !== null && typeof body === 'object' && body.success === true ? body.data : undefined;
}

/** One line that says why an answer is not what was asked for, from the envelope when there is one. */
export function describeAnswer(answer: GatewayAnswer): string {
  const body = answer.body as { error?: unknown; code?: unknown } | undefined;
  if (body !== null && typeof body === 'object' && typeof body.error === 'string') {
    return `HTTP ${answer.status} ${body.error}${typeof body.code === 'string' ? ` (${body.code})` : ''}`;
  }
  return `HTTP ${answer.status}`;
}

function parseUrl(raw: string, source: string): URL {
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // reported below
  }
  throw new CommandFailure(`${source}: '${raw}' is not an http(s) URL`);
}

/** An environment value or option, trimmed; unset or blank is undefined. */
export function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ?? (error instanceof Error ? error.message : String(error));
}
