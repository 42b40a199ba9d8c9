import net from 'node:net';
import { readCaBundle, type CaBundleLoad } from '@gateway/config-file';
import type { ProxyConfig, Route } from '@gateway/route-model';
import type { Logger } from './ports';
import type { UpstreamCaFileRule } from './upstream-ca-file-rule';

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
  /**
   * The refusal as health checks report it, naming the upstream and the field but not the file or
   * why it failed: check verdicts reach /health/deep on the proxy port, the file is for the log.
   */
  readonly refusalSummary?: string;
}

/** What tells two TLS settings apart: equal keys share connections, a rotated CA file changes it. */
export function upstreamTlsKey(tls: UpstreamTls | undefined): string {
  return tls === undefined ? '' : `${tls.verify}|${tls.serverName ?? ''}|${tls.caDigest}|${tls.refusal ?? ''}`;
}

/** What node's tls.connect and https.request take from one upstream's TLS settings. */
export interface TlsClientOptions {
  /** SNI and the name the certificate is checked against; absent for an IP literal (then its IP is checked). */
  readonly servername?: string;
  readonly ca?: Buffer;
  readonly rejectUnauthorized: boolean;
}

/**
 * The client TLS options for a connection to `hostname` under `tls`: the one place proxied
 * requests (lean client pool), WebSocket handshakes and active health checks take them from, so
 * a target's check trusts exactly what its traffic trusts. SNI is the configured server name or
 * the host name, never an IP literal (RFC 6066 3).
 */
export function tlsClientOptions(hostname: string, tls: UpstreamTls | undefined): TlsClientOptions {
  const servername = tls?.serverName ?? hostname;
  return {
    ...(net.isIP(servername) === 0 ? { servername } : {}),
    ...(tls?.ca === undefined ? {} : { ca: tls.ca }),
    rejectUnauthorized: tls?.verify ?? true,
  };
}

/**
 * Resolves each route's upstream TLS settings for one configuration: the named upstream's
 * `tls` block over `proxy.upstreamTls` (the default CA bundle). CA files are read once per load
 * (a reload reads them again, so a rotated bundle applies to every route, compiled again or not).
 * A CA file that does not load fails only the upstreams that use it, logged once per load with
 * the upstream, the field and the file; it never fails the load. `verify: false` is allowed but
 * logged as a warning at every load. With a `caFileRule` (upstreams from a control plane), an
 * upstream's own `tls.caFile` that breaks it is refused the same way, without reading the file.
 */
export class UpstreamTlsResolver {
  private readonly files = new Map<string, CaBundleLoad>();
  private readonly byUpstream = new Map<string, UpstreamTls>();
  private readonly upstreams: ProxyConfig['upstreams'];
  private readonly defaultCaFile: string | undefined;

  constructor(
    config: ProxyConfig,
    private readonly logger: Logger,
    private readonly caFileRule?: UpstreamCaFileRule,
  ) {
    this.upstreams = config.upstreams;
    this.defaultCaFile = config.proxy.upstreamTls?.caFile;
  }

  /** The TLS settings of an https route upstream; undefined for plain http. */
  forRoute(route: Route): UpstreamTls | undefined {
    return route.upstream.startsWith('https:') ? this.forUpstream(route.upstreamName) : undefined;
  }

  /**
   * The TLS settings of https connections to a named upstream (undefined: a route's own URL, which
   * gets `proxy.upstreamTls`), resolved once per load: what its requests and its health checks use.
   */
  forUpstream(upstreamName: string | undefined): UpstreamTls {
    const name = upstreamName ?? '';
    let tls = this.byUpstream.get(name);
    if (tls === undefined) {
      tls = this.resolve(upstreamName);
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
    const field = own?.caFile !== undefined ? `upstreams[${index}].tls.caFile` : 'proxy.upstreamTls.caFile';
    // proxy.upstreamTls.caFile is always the data plane's own proxy.yml: only an upstream's own file is ruled.
    const ruled = own?.caFile === undefined ? undefined : this.caFileRule?.problem(field, caFile);
    const load: CaBundleLoad = ruled === undefined ? this.read(caFile) : { ok: false, reason: ruled };
    if (load.ok) return { ca: load.bundle.pem, caDigest: load.bundle.digest, verify, serverName };
    const who = upstreamName === undefined ? 'https upstream' : `upstream '${upstreamName}'`;
    // A rule's message already starts with the field; a file's reason starts with the path.
    const refusal = ruled === undefined ? `${who}: ${field} ${load.reason}` : `${who}: ${ruled}`;
    this.logger.error(
      { upstream: upstreamName, field, file: caFile, reason: load.reason },
      'upstream CA file cannot be loaded: requests to this upstream fail with 502 until it can (the rest of the configuration applies)',
    );
    const refusalSummary = `${who}: ${field} cannot be loaded (the data plane's log says which file and why)`;
    return { ca: undefined, caDigest: '', verify, serverName, refusal, refusalSummary };
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
