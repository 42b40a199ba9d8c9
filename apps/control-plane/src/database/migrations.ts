import { ApiKeysPostgres1763800000000 } from './migrations/1763800000000-api-keys.postgres';
import { ApiKeysSqlite1763800000000 } from './migrations/1763800000000-api-keys.sqlite';
import { InitialSchemaPostgres1763780000000 } from './migrations/1763780000000-initial-schema.postgres';
import { InitialSchemaSqlite1763780000000 } from './migrations/1763780000000-initial-schema.sqlite';
import { ProxyFileStatePostgres1763790000000 } from './migrations/1763790000000-proxy-file-state.postgres';
import { ProxyFileStateSqlite1763790000000 } from './migrations/1763790000000-proxy-file-state.sqlite';
import { SamlPostgres1763840000000 } from './migrations/1763840000000-saml.postgres';
import { SamlSqlite1763840000000 } from './migrations/1763840000000-saml.sqlite';
import { SettingsPostgres1763820000000 } from './migrations/1763820000000-settings.postgres';
import { SettingsSqlite1763820000000 } from './migrations/1763820000000-settings.sqlite';
import { UserDisabledPostgres1763810000000 } from './migrations/1763810000000-user-disabled.postgres';
import { UserDisabledSqlite1763810000000 } from './migrations/1763810000000-user-disabled.sqlite';
import { TelemetryIntervalsPostgres1763830000000 } from './migrations/1763830000000-telemetry-intervals.postgres';
import { TelemetryIntervalsSqlite1763830000000 } from './migrations/1763830000000-telemetry-intervals.sqlite';
import { LeasesAndWebhooksPostgres1763850000000 } from './migrations/1763850000000-leases-and-webhooks.postgres';
import { LeasesAndWebhooksSqlite1763850000000 } from './migrations/1763850000000-leases-and-webhooks.sqlite';
import { ManagementSessionsPostgres1763870000000 } from './migrations/1763870000000-management-sessions.postgres';
import { ManagementSessionsSqlite1763870000000 } from './migrations/1763870000000-management-sessions.sqlite';
import { EventsPostgres1763880000000 } from './migrations/1763880000000-events.postgres';
import { EventsSqlite1763880000000 } from './migrations/1763880000000-events.sqlite';
import { RunbooksAndAiPostgres1763890000000 } from './migrations/1763890000000-runbooks-and-ai.postgres';
import { RunbooksAndAiSqlite1763890000000 } from './migrations/1763890000000-runbooks-and-ai.sqlite';
import { UpstreamsPostgres1763918000000 } from './migrations/1763918000000-upstreams.postgres';
import { UpstreamsSqlite1763918000000 } from './migrations/1763918000000-upstreams.sqlite';

/**
 * Migrations per dialect, oldest first. Each schema change adds one class to BOTH lists
 * (`<timestamp>-<name>.sqlite.ts` and `.postgres.ts`); `synchronize` is never used.
 */
export const SQLITE_MIGRATIONS = [InitialSchemaSqlite1763780000000, ProxyFileStateSqlite1763790000000, ApiKeysSqlite1763800000000, UserDisabledSqlite1763810000000, SettingsSqlite1763820000000, TelemetryIntervalsSqlite1763830000000, SamlSqlite1763840000000, LeasesAndWebhooksSqlite1763850000000, ManagementSessionsSqlite1763870000000, EventsSqlite1763880000000, RunbooksAndAiSqlite1763890000000, UpstreamsSqlite1763918000000];
export const POSTGRES_MIGRATIONS = [InitialSchemaPostgres1763780000000, ProxyFileStatePostgres1763790000000, ApiKeysPostgres1763800000000, UserDisabledPostgres1763810000000, SettingsPostgres1763820000000, TelemetryIntervalsPostgres1763830000000, SamlPostgres1763840000000, LeasesAndWebhooksPostgres1763850000000, ManagementSessionsPostgres1763870000000, EventsPostgres1763880000000, RunbooksAndAiPostgres1763890000000, UpstreamsPostgres1763918000000];
