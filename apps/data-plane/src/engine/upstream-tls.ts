import { readCaBundle, type CaBundleLoad } from '@gateway/config-file';
import type { ProxyConfig, Route } from '@gateway/route-model';
import type { Logger } from './ports';

/** How the gateway talks TLS to one HTTPS upstream, resolved from the configuration when routes load. */
export interface UpstreamTls {
  /** PEM CA certificates from `caFile`; undefined: node's bundled roots. */
  readonly ca: Buffer | undefined;
  /** Short digest of `ca`, so a rotated bundle gets new connections (pool key). */
  readonly caDigest: string;
  /** Certificates are verified (default); false only when the upstream says `tls.verify: false`. */
  readonly verify: boolean;
  /** SNI and the name the certificate must carry; default the URL's host (no SNI for an IP address). */
  readonly serverName: string | undefined;
  /**
   * Set when the CA file could not be loaded: why, naming the upstream, the field and the file.
   * Every request to the upstream then fails (502) with it in the log: the gateway never falls
   * back to other roots, and the rest of the configuration applies (docs/tls.md).
   */
  readonly refusal?: string;
}

/** What tells two TLS settings apart: equal keys share connections, a rotated CA file changes it. */
export function upstreamTlsKey(tls: UpstreamTls | undefined): string {
  return tls === undefined ? '' : `${tls.verify}|${tls.serverName ?? ''}|${tls.caDigest}|${tls.refusal ?? ''}`;
}

/**
 * Resolves each route's upstream TLS settings for one configuration: the named upstream's
 * `tls` block over `proxy.upstreamTls` (the default CA bundle). CA files are read once per load
 * (a reload reads them again, so a rotated bundle applies to every route, compiled again or not).
 * A CA file that does not load fails only the upstreams that use it, logged once per load with
 * the upstream, the field and the file; it never fails the load. `verify: false` is allowed but
 * logged as a warning at every load.
 */
export class UpstreamTlsResolver {
  private readonly files = new Map<string, CaBundleLoad>();
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
    const verify = own?.verify ?? true;
    if (!verify) {
      this.logger.warn({ upstream: upstreamName, field: `upstreams[${index}].tls.verify` }, 'upstream TLS certificates are NOT verified (tls.verify: false); use only for testing');
    }
    const serverName = own?.serverName;
    const caFile = own?.caFile ?? this.defaultCaFile;
    if (caFile === undefined) return { ca: undefined, caDigest: '', verify, serverName };
    const load = this.read(caFile);
    if (load.ok) return { ca: load.bundle.pem, caDigest: load.bundle.digest, verify, serverName };
    const field = own?.caFile !== undefined ? `upstreams[${index}].tls.caFile` : 'proxy.upstreamTls.caFile';
    const who = upstreamName === undefined ? 'https upstream' : `upstream '${upstreamName}'`;
    const refusal = `${who}: ${field} ${load.reason}`;
    this.logger.error(
      { upstream: upstreamName, field, file: caFile, reason: load.reason },
      'upstream CA file cannot be loaded: requests to this upstream fail with 502 until it can (the rest of the configuration applies)',
    );
    return { ca: undefined, caDigest: '', verify, serverName, refusal };
  }

  private read(caFile: string): CaBundleLoad {
    let load = this.files.get(caFile);
    if (load === undefined) {
      load = readCaBundle(caFile);
      this.files.set(caFile, load);
    }
    return load;
  }
}
