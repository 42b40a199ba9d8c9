import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ProxyConfig, Route } from '@gateway/route-model';
import type { Logger } from './ports';

/** How the gateway talks TLS to one HTTPS upstream, resolved from proxy.yml when routes load. */
export interface UpstreamTls {
  /** PEM CA certificates from `caFile`; undefined: node's bundled roots. */
  readonly ca: Buffer | undefined;
  /** Short digest of `ca`, so a rotated bundle gets new connections (pool key). */
  readonly caDigest: string;
  /** Certificates are verified (default); false only when the upstream says `tls.verify: false`. */
  readonly verify: boolean;
  /** SNI and the name the certificate must carry; default the URL's host (no SNI for an IP address). */
  readonly serverName: string | undefined;
}

/**
 * Resolves each route's upstream TLS settings for one configuration: the named upstream's
 * `tls` block over `proxy.upstreamTls` (the default CA bundle). CA files are read once per load
 * (a reload reads them again, so a rotated bundle applies); an unreadable file fails the load
 * with the field that names it. `verify: false` is allowed but logged as a warning at every load.
 */
export class UpstreamTlsResolver {
  private readonly files = new Map<string, { ca: Buffer; digest: string }>();
  private readonly byUpstream = new Map<string, UpstreamTls>();
  private readonly upstreams: ProxyConfig['upstreams'];
  private readonly defaultCaFile: string | undefined;

  constructor(
    config: ProxyConfig,
    private readonly logger: Logger,
  ) {
    this.upstreams = config.upstreams;
    this.defaultCaFile = config.proxy.upstreamTls?.caFile;
  }

  /** The TLS settings of an https route upstream; undefined for plain http. */
  forRoute(route: Route): UpstreamTls | undefined {
    if (!route.upstream.startsWith('https:')) return undefined;
    const name = route.upstreamName ?? '';
    let tls = this.byUpstream.get(name);
    if (tls === undefined) {
      tls = this.resolve(route.upstreamName);
      this.byUpstream.set(name, tls);
    }
    return tls;
  }

  private resolve(upstreamName: string | undefined): UpstreamTls {
    const index = upstreamName === undefined ? -1 : this.upstreams.findIndex((u) => u.name === upstreamName);
    const own = index === -1 ? undefined : this.upstreams[index]?.tls;
    const caFile = own?.caFile ?? this.defaultCaFile;
    const field = own?.caFile !== undefined ? `upstreams[${index}].tls.caFile` : 'proxy.upstreamTls.caFile';
    const file = caFile === undefined ? undefined : this.read(caFile, field);
    const verify = own?.verify ?? true;
    if (!verify) {
      this.logger.warn({ upstream: upstreamName, field: `upstreams[${index}].tls.verify` }, 'upstream TLS certificates are NOT verified (tls.verify: false); use only for testing');
    }
    return { ca: file?.ca, caDigest: file?.digest ?? '', verify, serverName: own?.serverName };
  }

  private read(caFile: string, field: string): { ca: Buffer; digest: string } {
    let file = this.files.get(caFile);
    if (file !== undefined) return file;
    let ca: Buffer;
    try {
      ca = readFileSync(caFile);
    } catch (error) {
      throw new Error(`${field}: cannot read ${caFile} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`${field}: ${caFile} holds no PEM certificate`);
    file = { ca, digest: createHash('sha256').update(ca).digest('hex').slice(0, 16) };
    this.files.set(caFile, file);
    return file;
  }
}
