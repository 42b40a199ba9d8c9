// What the three minimal forwarders share: arguments, prefix stripping and the hop-by-hop fields
// none of them passes on, so that they differ in their upstream client only.
export interface ForwarderTarget {
  readonly origin: URL;
  readonly hostname: string;
  readonly port: number;
  readonly prefix: string;
}

export function forwarderTarget(script: string): ForwarderTarget {
  const [origin, prefix = ''] = process.argv.slice(2);
  if (!origin) {
    process.stderr.write(`usage: ${script} <upstream origin> [<prefix>]\n`);
    process.exit(2);
  }
  const url = new URL(origin);
  return { origin: url, hostname: url.hostname, port: Number(url.port || 80), prefix };
}

export function upstreamPath(url: string | undefined, prefix: string): string {
  const path = url ?? '/';
  return prefix !== '' && path.startsWith(prefix) ? path.slice(prefix.length) || '/' : path;
}

/** Connection-scoped fields (RFC 9110 7.6.1) plus the framing each client sets itself. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'content-length']);
