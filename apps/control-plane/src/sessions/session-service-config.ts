import { Inject, Injectable } from '@nestjs/common';
import { SESSION_CACHE_TTL_DEFAULT } from '@gateway/route-model';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { readProxyFile } from '../config-file/proxy-file.reader';

/** The external session service of `authentication` in proxy.yml (decision 23), when one is configured. */
export interface SessionServiceConfig {
  /** undefined: the gateway keeps its own sessions. */
  service?: { apiUrl: string; tenantId?: string };
  /** Seconds a valid answer is reused (0: ask every time); never past the session's expiry. */
  cacheTtlSeconds: number;
}

/** proxy.yml is read again at most this often: the guard consults this on every request. */
const REREAD_MS = 5_000;

@Injectable()
export class SessionServiceConfigSource {
  private cached: { at: number; value: Promise<SessionServiceConfig> } | undefined;

  constructor(@Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig) {}

  current(): Promise<SessionServiceConfig> {
    const now = Date.now();
    if (this.cached === undefined || now - this.cached.at > REREAD_MS) this.cached = { at: now, value: this.read() };
    return this.cached.value;
  }

  private async read(): Promise<SessionServiceConfig> {
    const file = await readProxyFile(this.config.configPath);
    // An invalid file is reported by the reconciler; until it is fixed, the gateway's own sessions.
    const auth = file.ok ? file.authentication : undefined;
    const validation = auth?.sessionValidation;
    const cacheTtlSeconds = validation === undefined ? SESSION_CACHE_TTL_DEFAULT : validation.enabled ? validation.cacheTTL : 0;
    if (auth?.enabled === false || auth?.provider === undefined || auth.apiUrl === undefined) return { cacheTtlSeconds };
    return { service: { apiUrl: auth.apiUrl, ...(auth.tenantId === undefined ? {} : { tenantId: auth.tenantId }) }, cacheTtlSeconds };
  }
}
