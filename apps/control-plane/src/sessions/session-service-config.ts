import { Inject, Injectable } from '@nestjs/common';
import { SESSION_CACHE_TTL_DEFAULT } from '@gateway/route-model';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { readProxyFile } from '../config-file/proxy-file.reader';
import { LiveSettings } from '../settings/live-settings.service';
import { SESSION_SERVICE_SECTION_KEY, SESSION_SERVICE_TIMEOUT_DEFAULT_MS, type SessionServiceSettings } from './session-service-settings.section';

/** Where and how the control plane reaches the external session service. */
export interface SessionServiceEndpoint {
  apiUrl: string;
  tenantId?: string;
  /** Sent as `Authorization: Bearer <apiKey>` (settings only); never logged. */
  apiKey?: string;
  timeoutMs: number;
}

/** The external session service (decision 23), when one is configured. */
export interface SessionServiceConfig {
  /** undefined: the gateway keeps its own sessions. */
  service?: SessionServiceEndpoint;
  /** Seconds a valid answer is reused (0: ask every time); never past the session's expiry. */
  cacheTtlSeconds: number;
}

/** proxy.yml is read again at most this often: the guard consults this on every request. */
const REREAD_MS = 5_000;

/**
 * The `sessionService` settings section when enabled (live on every control plane, with its sealed
 * API key), otherwise `authentication` of proxy.yml.
 */
@Injectable()
export class SessionServiceConfigSource {
  private cached: { at: number; value: Promise<SessionServiceConfig> } | undefined;

  constructor(
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    private readonly live: LiveSettings,
  ) {}

  current(): Promise<SessionServiceConfig> {
    const fromSettings = this.fromSettings();
    if (fromSettings !== undefined) return Promise.resolve(fromSettings);
    const now = Date.now();
    if (this.cached === undefined || now - this.cached.at > REREAD_MS) this.cached = { at: now, value: this.fromProxyFile() };
    return this.cached.value;
  }

  private fromSettings(): SessionServiceConfig | undefined {
    const section = this.live.section(SESSION_SERVICE_SECTION_KEY) as Partial<SessionServiceSettings> | undefined;
    // Validated at PUT: enabled implies apiUrl and provider.
    if (section?.enabled !== true || typeof section.apiUrl !== 'string') return undefined;
    const apiKey = this.live.secret(SESSION_SERVICE_SECTION_KEY, 'apiKey');
    return {
      service: {
        apiUrl: section.apiUrl,
        ...(typeof section.tenantId === 'string' ? { tenantId: section.tenantId } : {}),
        ...(apiKey === undefined ? {} : { apiKey }),
        timeoutMs: section.timeoutMs ?? SESSION_SERVICE_TIMEOUT_DEFAULT_MS,
      },
      cacheTtlSeconds: section.cacheTtlSeconds ?? SESSION_CACHE_TTL_DEFAULT,
    };
  }

  private async fromProxyFile(): Promise<SessionServiceConfig> {
    const file = await readProxyFile(this.config.configPath);
    // An invalid file is reported by the reconciler; until it is fixed, the gateway's own sessions.
    const auth = file.ok ? file.authentication : undefined;
    const validation = auth?.sessionValidation;
    const cacheTtlSeconds = validation === undefined ? SESSION_CACHE_TTL_DEFAULT : validation.enabled ? validation.cacheTTL : 0;
    if (auth?.enabled === false || auth?.provider === undefined || auth.apiUrl === undefined) return { cacheTtlSeconds };
    return { service: { apiUrl: auth.apiUrl, ...(auth.tenantId === undefined ? {} : { tenantId: auth.tenantId }), timeoutMs: SESSION_SERVICE_TIMEOUT_DEFAULT_MS }, cacheTtlSeconds };
  }
}
