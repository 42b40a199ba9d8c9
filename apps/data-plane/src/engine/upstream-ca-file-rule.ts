import { caFileLocationProblem } from '@gateway/config-file';

/**
 * Which CA files an upstream's own `tls.caFile` may name, when upstreams come from a control
 * plane (in-process or over Redis). The control plane checks GATEWAY_CA_DIRS when the API writes;
 * the data plane checks again what a snapshot brings, because a snapshot is not trusted for
 * arriving on an internal channel (a forged bus message, a row written around the API, a control
 * plane of another version). proxy.yml read by the data plane itself is the operator's file and
 * gets no rule (docs/tls.md, "CA files of HTTPS upstreams").
 */
export interface UpstreamCaFileRule {
  /** Why `caFile`, named by `field`, must not be read (the message starts with `field`); undefined: read it. */
  problem(field: string, caFile: string): string | undefined;
}

/** The shared rule (@gateway/config-file, the control plane's too) over this data plane's GATEWAY_CA_DIRS. */
export function caDirectoriesRule(dirs: readonly string[]): UpstreamCaFileRule {
  return { problem: (field, caFile) => caFileLocationProblem(field, caFile, dirs) };
}
