import { api } from '../api/api-client';
import type { Page } from '../api/api-types';
import type { AiSettings, AiSettingsInput, AiStatus, Analysis, AssistantSettings, AssistantSettingsInput, ExecutionStatus, Incident, IncidentStatus, Runbook, RunbookExecution, RunbookInput } from './ops-types';

const id = (value: string): string => encodeURIComponent(value);

/** The runbook, approval, incident and AI endpoints (docs/runbooks.md, docs/ai.md) over the one API client. */
export const opsApi = {
  listRunbooks: (limit: number, offset: number): Promise<Page<Runbook>> => api.callList<Runbook>(`runbooks?limit=${limit}&offset=${offset}`),
  getRunbook: (runbookId: string): Promise<Runbook> => api.call<Runbook>('GET', `runbooks/${id(runbookId)}`),
  createRunbook: (input: RunbookInput): Promise<Runbook> => api.call<Runbook>('POST', 'runbooks', input),
  replaceRunbook: (runbookId: string, input: RunbookInput): Promise<Runbook> => api.call<Runbook>('PUT', `runbooks/${id(runbookId)}`, input),
  setRunbookEnabled: (runbookId: string, enabled: boolean): Promise<Runbook> => api.call<Runbook>('PATCH', `runbooks/${id(runbookId)}`, { enabled }),
  deleteRunbook: (runbookId: string): Promise<void> => api.callEmpty('DELETE', `runbooks/${id(runbookId)}`),

  listExecutions: (query: { runbookId?: string; status?: ExecutionStatus; limit: number }): Promise<Page<RunbookExecution>> => {
    const params = new URLSearchParams({ limit: String(query.limit) });
    if (query.runbookId !== undefined) params.set('runbookId', query.runbookId);
    if (query.status !== undefined) params.set('status', query.status);
    return api.callList<RunbookExecution>(`runbook-executions?${params.toString()}`);
  },
  decideExecution: (executionId: string, decision: 'approve' | 'reject'): Promise<RunbookExecution> =>
    api.call<RunbookExecution>('POST', `runbook-executions/${id(executionId)}/${decision}`),

  listIncidents: (status: IncidentStatus | undefined, range: { limit: number; offset: number }): Promise<Page<Incident>> =>
    api.callList<Incident>(`ai-incidents?limit=${range.limit}&offset=${range.offset}${status === undefined ? '' : `&status=${status}`}`),
  getIncident: (incidentId: string): Promise<Incident> => api.call<Incident>('GET', `ai-incidents/${id(incidentId)}`),
  updateIncident: (incidentId: string, change: Partial<Pick<Incident, 'status' | 'hypothesis'>>): Promise<Incident> =>
    api.call<Incident>('PUT', `ai-incidents/${id(incidentId)}`, change),
  addNote: (incidentId: string, text: string): Promise<unknown> => api.call<unknown>('POST', `ai-incidents/${id(incidentId)}/notes`, { text }),

  aiStatus: (): Promise<AiStatus> => api.call<AiStatus>('GET', 'ai'),
  analyseIncident: (incidentId: string): Promise<Analysis> => api.call<Analysis>('POST', 'ai', { incidentId }),
  aiSettings: (): Promise<AiSettings> => api.call<AiSettings>('GET', 'settings/ai'),
  saveAiSettings: (input: AiSettingsInput): Promise<AiSettings> => api.call<AiSettings>('PUT', 'settings/ai', input),
  assistantSettings: (): Promise<AssistantSettings> => api.call<AssistantSettings>('GET', 'settings/assistant'),
  saveAssistantSettings: (input: AssistantSettingsInput): Promise<AssistantSettings> => api.call<AssistantSettings>('PUT', 'settings/assistant', input),
};
