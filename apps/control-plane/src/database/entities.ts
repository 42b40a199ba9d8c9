import { ApiKeyEntity } from '../api-keys/api-key.entity';
import { AuditLogEntity } from '../audit/audit-log.entity';
import { RevokedTokenEntity } from '../auth/revoked-token.entity';
import { ConfigRevisionEntity } from '../cluster/config-revision.entity';
import { ProxyFileStateEntity } from '../cluster/proxy-file-state.entity';
import { DetectorStateEntity } from '../events/detector-state.entity';
import { EventRecordEntity } from '../events/event-record.entity';
import { TelemetryIntervalEntity } from '../monitoring/telemetry-interval.entity';
import { RouteEntity } from '../routes/route.entity';
import { SamlAssertionEntity } from '../saml/saml-assertion.entity';
import { SamlLoginCodeEntity } from '../saml/saml-login-code.entity';
import { ManagementSessionEntity } from '../sessions/management-session.entity';
import { SamlRequestEntity } from '../saml/saml-request.entity';
import { SettingsVersionEntity } from '../settings/settings-version.entity';
import { UserEntity } from '../users/user.entity';
import { WebhookAttemptEntity } from '../webhooks/webhook-attempt.entity';
import { WebhookDeliveryEntity } from '../webhooks/webhook-delivery.entity';
import { WebhookEntity } from '../webhooks/webhook.entity';
import { BreakerHoldEntity } from '../route-operations/breaker-hold.entity';
import { RunbookEntity } from '../runbooks/runbook.entity';
import { RunbookExecutionEntity } from '../runbooks/runbook-execution.entity';
import { AiIncidentEntity } from '../ai-incidents/ai-incident.entity';
import { AiUsageEntity } from '../ai/ai-usage.entity';
import { UpstreamEntity } from '../upstreams/upstream.entity';

/** Every entity of the schema (each feature module also registers its own with forFeature). */
export const ENTITIES = [RouteEntity, ConfigRevisionEntity, ProxyFileStateEntity, UserEntity, RevokedTokenEntity, AuditLogEntity, ApiKeyEntity, SettingsVersionEntity, TelemetryIntervalEntity, SamlRequestEntity, SamlAssertionEntity, SamlLoginCodeEntity, WebhookEntity, WebhookDeliveryEntity, WebhookAttemptEntity, ManagementSessionEntity, EventRecordEntity, DetectorStateEntity, BreakerHoldEntity, RunbookEntity, RunbookExecutionEntity, AiIncidentEntity, AiUsageEntity, UpstreamEntity];
