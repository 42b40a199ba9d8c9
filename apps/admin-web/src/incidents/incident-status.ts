import type { IncidentStatus } from '../ops/ops-types';

export const INCIDENT_STATUSES: readonly IncidentStatus[] = ['open', 'acknowledged', 'mitigated', 'resolved'];

export const INCIDENT_STATUS_TEXT: Record<IncidentStatus, string> = { open: 'Open', acknowledged: 'Acknowledged', mitigated: 'Mitigated', resolved: 'Resolved' };

/** The buttons that move an incident on, by the verb an admin uses. */
export const STATUS_CHANGES: Array<{ to: IncidentStatus; verb: string }> = [
  { to: 'acknowledged', verb: 'Acknowledge' },
  { to: 'mitigated', verb: 'Mitigate' },
  { to: 'resolved', verb: 'Resolve' },
];
