import { stat } from 'node:fs/promises';
import path from 'node:path';
import { readCaBundle } from '@gateway/config-file';
import { PROXY_DEFAULTS, type ProxyConfig, type ProxySettings, type Route, type UpstreamDefinition } from '@gateway/route-model';
import { readProxyConfigFile, readProxySettingsFile, type ConfigFileError, type ConfigFileResult } from './adapters/yaml-config-file.adapter';
import { SerializedJsonArray } from './engine/state-files';
import { LIGHT_STEPS_PER_YIELD, runInSlices } from './engine/time-slices';
import { loadCertificates } from './engine/tls-certificates';
import { unenforcedConfigErrors } from './engine/unenforced-config';
import { POLICY_FACTORIES } from './policies/policy-registry';
import { FINGERPRINT_BYTES, type RouteRecords } from './proxy-config-worker-protocol';
import { ReloadWorker } from './reload-worker';

export type { ConfigFileError, ConfigFileResult } from './adapters/yaml-config-file.adapter';

/**
 * Reads proxy.yml the way the data plane will run it: YAML and schema errors with their lines,
 * then every block this data plane would not enforce. `gateway start`, SIGHUP reloads,
 * `config:validate` and `config:reload` all go through here, so a file that validates is a file
 * the gateway serves exactly as written.
 */
export async function loadProxyConfig(filePath: string): Promise<ConfigFileResult> {
  const result = await readProxyConfigFile(filePath);
  if (!result.ok) return result;
  const errors = unenforcedConfigErrors(result.config, POLICY_FACTORIES);
  if (errors.length > 0) return { ok: false, errors: errors.map((e) => ({ ...e, line: result.lineOf?.(e.field) })) };
  const proxy = withCertificatePaths(result.config.proxy, filePath);
  const files = [...(await certificateErrors(proxy, result.lineOf)), ...caFileErrors(proxy, result.config.upstreams, result.lineOf)];
  return files.length > 0 ? { ok: false, errors: files } : { ...result, config: { ...result.config, proxy } };
}

export type ProxySettingsLoad = { ok: true; settings: ProxySettings; from: 'file' | 'defaults' } | { ok: false; errors: ConfigFileError[] };

/**
 * The listening settings of a data plane that follows a control plane: the `proxy:` block of
 * proxy.yml when the file exists, PROXY_DEFAULTS otherwise. Routes in the file are the control
 * plane's business and are not read here.
 */
export async function loadProxySettings(filePath: string): Promise<ProxySettingsLoad> {
  const result = await readProxySettingsFile(filePath);
  if (result.ok === 'missing') return { ok: true, settings: { ...PROXY_DEFAULTS, trustedProxies: [] }, from: 'defaults' };
  if (!result.ok) return result;
  const errors = unenforcedConfigErrors(result.config, POLICY_FACTORIES);
  if (errors.length > 0) return { ok: false, errors: errors.map((e) => ({ ...e, line: result.lineOf?.(e.field) })) };
  const settings = withCertificatePaths(result.config.proxy, filePath);
  const files = [...(await certificateErrors(settings, result.lineOf)), ...caFileErrors(settings, [], result.lineOf)];
  return files.length > 0 ? { ok: false, errors: files } : { ok: true, settings, from: 'file' };
}

/** Certificate and key paths of `proxy.tls` relative to the file's own directory (as its other paths are read), made absolute. */
function withCertificatePaths(proxy: ProxySettings, filePath: string): ProxySettings {
  const tls = proxy.tls;
  if (tls === undefined) return proxy;
  const dir = path.dirname(path.resolve(filePath));
  const certificates = tls.certificates.map((c) => ({ ...c, certFile: path.resolve(dir, c.certFile), keyFile: path.resolve(dir, c.keyFile) }));
  return { ...proxy, tls: { ...tls, certificates } };
}

/** The files `proxy.tls` names must load: a file that validates is one that starts (nginx -t checks them too). */
async function certificateErrors(proxy: ProxySettings, lineOf: ((field: string) => number | undefined) | undefined): Promise<ConfigFileError[]> {
  if (proxy.tls?.enabled !== true) return [];
  const loaded = await loadCertificates(proxy.tls.certificates, proxy.tls.minVersion);
  return loaded.ok ? [] : loaded.errors.map((e) => ({ ...e, line: lineOf?.(e.field) }));
}

/**
 * The CA bundles the file names must load, as its certificates must: proxy.yml is checked as a
 * whole (`config:validate` finds a missing CA file). Upstreams from a control plane are not
 * checked here: there a CA file that does not load fails only its upstream (docs/tls.md).
 */
function caFileErrors(proxy: ProxySettings, upstreams: readonly UpstreamDefinition[], lineOf: ((field: string) => number | undefined) | undefined): ConfigFileError[] {
  const named: Array<{ field: string; file: string | undefined }> = [
    { field: 'proxy.upstreamTls.caFile', file: proxy.upstreamTls?.caFile },
    ...upstreams.map((u, i) => ({ field: `upstreams[${i}].tls.caFile`, file: u.tls?.caFile })),
  ];
  const errors: ConfigFileError[] = [];
  for (const { field, file } of named) {
    if (file === undefined) continue;
    const load = readCaBundle(file);
    if (!load.ok) errors.push({ field, code: 'TLS_CA_FILE_INVALID', message: load.reason, line: lineOf?.(field) });
  }
  return errors;
}

/**
 * A proxy.yml read for a reload: the configuration, and when a worker read it a fingerprint per
 * route (see TableSource) and each route's JSON text (what routes.snapshot.json records).
 */
export type ReloadConfigLoad =
  | { ok: true; config: ProxyConfig; fingerprints?: string[]; routeJson?: SerializedJsonArray }
  | { ok: false; errors: ConfigFileError[] };

/**
 * Files up to this size are parsed on the event loop: that takes a few milliseconds, while
 * starting a worker (a fresh V8 isolate loading the YAML parser and the route model) takes tens
 * of milliseconds on a quiet machine and over a second on a busy one. About 300 routes.
 */
const IN_THREAD_MAX_BYTES = 64 * 1024;

/**
 * The loader of a SIGHUP reload: in a worker thread for a large file, in this thread for a small
 * one. `known`: the routes being served (see KnownRoute), reused when unchanged.
 */
export async function loadProxyConfigForReload(filePath: string, known: readonly KnownRoute[] = []): Promise<ReloadConfigLoad> {
  let size: number;
  try {
    size = (await stat(filePath)).size;
  } catch {
    // Missing or unreadable: loadProxyConfig says so with the usual error.
    size = 0;
  }
  return size > IN_THREAD_MAX_BYTES ? loadProxyConfigOffThread(filePath, known) : loadProxyConfig(filePath);
}

/** Bounds of the worker: a config file is at most 5 MB, but its YAML document takes many times that. */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 768 };
const WORKER_TIMEOUT_MS = 60_000;
/**
 * The worker stays this long after a reload, for the next one: reloads come in bursts (a deploy
 * tool writing the file and signalling several times, the bench's back-to-back reloads), and a
 * kept thread parses with its code compiled. Longer gaps start a fresh thread, as before.
 */
const WORKER_IDLE_MS = 5_000;

const reloadWorker = new ReloadWorker({
  script: path.join(__dirname, 'proxy-config-worker.js'),
  timeoutMs: WORKER_TIMEOUT_MS,
  idleMs: WORKER_IDLE_MS,
  resourceLimits: WORKER_LIMITS,
});

/**
 * loadProxyConfig in a worker thread (the same checks, the same errors with their lines), for
 * reloads while traffic flows: the main thread only receives the routes as transferred buffers
 * of JSON records and parses, in slices of a few milliseconds, those not in `known`. A worker that crashes, runs out
 * of memory or takes longer than a minute is a failed load, never a stalled or dead gateway (ReloadWorker).
 */
export async function loadProxyConfigOffThread(filePath: string, known: readonly KnownRoute[] = []): Promise<ReloadConfigLoad> {
  const received = await reloadWorker.read(filePath);
  if (!received.ok) return received;
  const { routes, fingerprints } = await runInSlices(parseRouteRecords(received.records, known));
  const { bytes, jsonStarts, ends } = received.records;
  // `bytes` is the routes' JSON joined as the snapshot file writes them: the file takes it whole.
  const routeJson = new SerializedJsonArray(ends.length, (i) => bytes.subarray(jsonStarts[i], ends[i]), bytes);
  return { ok: true, config: { ...received.config, routes }, fingerprints, routeJson };
}

/**
 * A route the running table serves, with the fingerprint its loader gave it (CompiledRoute has
 * this shape): a record with the same id and fingerprint is that route, and is not parsed again.
 */
export interface KnownRoute {
  readonly id: string;
  readonly route: Route;
  readonly fingerprint?: string;
}

/**
 * One route a step: each was validated by the worker, this only turns its record back into a
 * value, or takes the running table's object when the fingerprint says it is the same route
 * (most of a reload's routes: no parsing, and no new objects for the garbage collector to copy).
 * A reload mostly keeps the routes where they were, so record i is first compared in place with
 * the running table's route i (its id and fingerprint read from the buffer without making strings:
 * 20,000 short strings a reload of 10,000 routes were young objects alive through the build); only
 * when that fails is the record's id decoded and looked up by id (the map built at the first miss).
 */
function* parseRouteRecords(records: RouteRecords, known: readonly KnownRoute[]): Generator<void, { routes: Route[]; fingerprints: string[] }, void> {
  const bytes = Buffer.from(records.bytes.buffer, records.bytes.byteOffset, records.bytes.byteLength);
  const heads = Buffer.from(records.heads.buffer, records.heads.byteOffset, records.heads.byteLength);
  // Sized once, as the build's lists (RouteTable.buildSteps): no backing store grown step by step.
  const routes = new Array<Route>(records.ends.length);
  const fingerprints = new Array<string>(records.ends.length);
  let byId: Map<string, KnownRoute> | undefined;
  let start = 0;
  for (let i = 0; i < records.ends.length; i += 1) {
    const end = records.headEnds[i] as number;
    const idStart = start + FINGERPRINT_BYTES;
    let same: KnownRoute | undefined = known[i];
    if (same === undefined || !holdsAscii(heads, idStart, end, same.id)) {
      byId ??= yield* knownById(known);
      same = byId.get(heads.toString('utf8', idStart, end));
    }
    if (same?.fingerprint !== undefined && holdsAscii(heads, start, idStart, same.fingerprint)) {
      routes[i] = same.route;
      fingerprints[i] = same.fingerprint;
    } else {
      routes[i] = JSON.parse(bytes.toString('utf8', records.jsonStarts[i], records.ends[i])) as Route;
      fingerprints[i] = heads.toString('latin1', start, idStart);
    }
    start = end;
    if (i % LIGHT_STEPS_PER_YIELD === LIGHT_STEPS_PER_YIELD - 1) yield;
  }
  return { routes, fingerprints };
}

/** The routes served with a fingerprint, by id, 256 a step. */
function* knownById(known: readonly KnownRoute[]): Generator<void, Map<string, KnownRoute>, void> {
  const byId = new Map<string, KnownRoute>();
  for (let i = 0; i < known.length; i += 1) {
    const entry = known[i] as KnownRoute;
    if (entry.fingerprint !== undefined) byId.set(entry.id, entry);
    if (i % 256 === 255) yield;
  }
  return byId;
}

/**
 * Whether bytes[start, end) are exactly `text`, compared without decoding. Only ASCII text can
 * match (a fingerprint always is; an id with other characters never matches here and is decoded
 * and looked up instead), so a byte is a character.
 */
function holdsAscii(bytes: Uint8Array, start: number, end: number, text: string): boolean {
  if (end - start !== text.length) return false;
  for (let k = 0; k < text.length; k += 1) {
    const code = text.charCodeAt(k);
    if (code > 0x7f || bytes[start + k] !== code) return false;
  }
  return true;
}
