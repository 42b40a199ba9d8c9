import path from 'node:path';
import { PROXY_DEFAULTS, type ProxySettings } from '@gateway/route-model';
import { readProxyConfigFile, readProxySettingsFile, type ConfigFileError, type ConfigFileResult } from './adapters/yaml-config-file.adapter';
import { loadCertificates } from './engine/tls-certificates';
import { unenforcedConfigErrors } from './engine/unenforced-config';
import { POLICY_FACTORIES } from './policies/policy-registry';

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
  const certificates = await certificateErrors(proxy, result.lineOf);
  return certificates.length > 0 ? { ok: false, errors: certificates } : { ...result, config: { ...result.config, proxy } };
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
  const certificates = await certificateErrors(settings, result.lineOf);
  return certificates.length > 0 ? { ok: false, errors: certificates } : { ok: true, settings, from: 'file' };
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
