// The shapes of the runbook, approval, incident and AI endpoints (issue 16), from the generated
// OpenAPI types like every other page's: an API change that breaks these pages breaks the build.
import type { BodyOf, DataOf } from '../api/api-types';

export type Runbook = DataOf<'/api/runbooks/{id}', 'get'>;
export type RunbookInput = BodyOf<'/api/runbooks', 'post'>;
export type RunbookAction = RunbookInput['actions'][number];
export type RunbookExecution = DataOf<'/api/runbook-executions/{id}', 'get'>;
export type ExecutionStatus = NonNullable<RunbookExecution['status']>;

export type Incident = DataOf<'/api/ai-incidents/{id}', 'get'>;
export type IncidentStatus = NonNullable<Incident['status']>;
export type IncidentSeverity = NonNullable<Incident['severity']>;
export type TimelineEntry = NonNullable<Incident['timeline']>[number];

export type Analysis = DataOf<'/api/ai', 'post'>;
export type AiStatus = DataOf<'/api/ai', 'get'>;
export type AiSettings = DataOf<'/api/settings/ai', 'get'>;
export type AiSettingsInput = BodyOf<'/api/settings/ai', 'put'>;
export type AssistantSettings = DataOf<'/api/settings/assistant', 'get'>;
export type AssistantSettingsInput = BodyOf<'/api/settings/assistant', 'put'>;
