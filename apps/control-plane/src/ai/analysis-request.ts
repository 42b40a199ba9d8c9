import type { FieldError } from '@gateway/route-model';

export interface AnalysisRequest {
  incidentId?: string;
  from?: string;
  to?: string;
}

/** POST /api/ai's body: an incident, or a window (`from`, `to`), never both. */
export function readAnalysisRequest(raw: unknown): { ok: true; value: AnalysisRequest } | { ok: false; errors: FieldError[] } {
  const body = (raw === undefined || raw === null ? {} : raw) as Record<string, unknown>;
  if (typeof body !== 'object' || Array.isArray(body)) return { ok: false, errors: [{ field: 'body', message: 'body must be a JSON object', code: 'VALIDATION_ERROR' }] };
  const errors: FieldError[] = [];
  for (const key of Object.keys(body)) if (!['incidentId', 'from', 'to'].includes(key)) errors.push({ field: key, message: `${key} is not a field (known: incidentId, from, to)`, code: 'VALIDATION_ERROR' });
  for (const key of ['incidentId', 'from', 'to']) {
    const value = body[key];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0 || value.length > 64)) errors.push({ field: key, message: `${key} must be a string of 1 to 64 characters`, code: 'VALIDATION_ERROR' });
  }
  if (body['incidentId'] !== undefined && (body['from'] !== undefined || body['to'] !== undefined)) errors.push({ field: 'incidentId', message: 'give an incidentId or a window (from, to), not both', code: 'VALIDATION_ERROR' });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: body as AnalysisRequest };
}
