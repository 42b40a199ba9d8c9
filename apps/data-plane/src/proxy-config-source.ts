import { PROXY_DEFAULTS, type ProxySettings } from '@gateway/route-model';
import { readProxyConfigFile, readProxySettingsFile, type ConfigFileError, type ConfigFileResult } from './adapters/yaml-config-file.adapter';
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
  if (errors.length === 0) return result;
  return { ok: false, errors: errors.map((e) => ({ ...e, line: result.lineOf?.(e.field) })) };
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
  return { ok: true, settings: result.config.proxy, from: 'file' };
}
