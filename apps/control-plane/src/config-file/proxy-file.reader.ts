import { stat } from 'node:fs/promises';
import { readProxyConfigFile, type ConfigFileError } from '@gateway/config-file';
import type { Route, SessionAuthenticationConfig, UpstreamDefinition } from '@gateway/route-model';

export interface ProxyFileContent {
  ok: true;
  routes: Route[];
  upstreams: UpstreamDefinition[];
  authentication?: SessionAuthenticationConfig;
  /** 1-based line of a field of the file (for errors found after parsing). */
  lineOf(field: string): number | undefined;
}

export type ProxyFileRead = ProxyFileContent | { ok: false; errors: ConfigFileError[] };

/**
 * proxy.yml through the same reader as the data plane (@gateway/config-file: YAML with line
 * numbers, validated by the route model). A missing file declares no routes.
 */
export async function readProxyFile(configPath: string): Promise<ProxyFileRead> {
  try {
    await stat(configPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, routes: [], upstreams: [], lineOf: () => undefined };
  }
  const result = await readProxyConfigFile(configPath);
  if (!result.ok) return { ok: false, errors: result.errors };
  const { routes, upstreams, authentication } = result.config;
  const content: ProxyFileContent = { ok: true, routes, upstreams, lineOf: (field) => result.lineOf?.(field) };
  if (authentication !== undefined) content.authentication = authentication;
  return content;
}
