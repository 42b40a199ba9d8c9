import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { NAME_PATTERN, ROUTE_INPUT_JSON_SCHEMA, normalizeRoute, type FieldError } from '@gateway/route-model';
import { api, appBase } from '../../api/api-client';
import { ApiError } from '../../api/api-error';
import { invalidateQueries } from '../../api/query-cache';
import type { RouteInput } from '../../api/api-types';
import { controlId, withValue, type Draft, type FieldPath } from './draft';
import { SchemaField } from './schema-field';

interface RouteFormProps {
  initial: Draft;
  /** Editing this route; undefined creates one. */
  routeId: string | undefined;
  readOnly: boolean;
}

/**
 * The route's fields in the schema's order. The browser validates with the route model (the same
 * normalizeRoute the API runs) before sending; errors from either land on the field they name,
 * with a summary on top that links to each. Saving sends the draft as edited: an untouched field
 * goes back exactly as it was loaded.
 */
export function RouteForm({ initial, routeId, readOnly }: RouteFormProps) {
  const location = useLocation();
  const [draft, setDraft] = useState<Draft>(initial);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [saving, setSaving] = useState(false);
  const onChange = (path: FieldPath, value: unknown) => setDraft((current) => withValue(current, path, value));

  async function save(asDraft: boolean): Promise<void> {
    const body = asDraft ? { ...draft, enabled: false } : draft;
    const local = normalizeRoute(body);
    // An upstream spelled like a name may name an upstream (proxy.yml's or /api/upstreams'): only the API knows them.
    const named = typeof body['upstream'] === 'string' && NAME_PATTERN.test(body['upstream']);
    const localErrors = local.ok ? [] : local.errors.filter((e) => !(named && e.field === 'upstream'));
    setFailure(undefined);
    if (localErrors.length > 0) {
      setErrors(localErrors);
      focusSummary();
      return;
    }
    setErrors([]);
    setSaving(true);
    try {
      const saved = routeId === undefined ? await api.createRoute(body as RouteInput) : await api.replaceRoute(routeId, body as RouteInput);
      invalidateQueries('routes:', `route:${saved.id}`, `route:${routeId ?? ''}`);
      location.route(`${appBase.pathname}routes/${encodeURIComponent(saved.id)}`);
    } catch (error) {
      const apiError = error instanceof ApiError ? error : new ApiError(0, 'UNEXPECTED_ERROR', String(error));
      setErrors(apiError.fields);
      setFailure(`${apiError.message} (${apiError.code})`);
      focusSummary();
    } finally {
      setSaving(false);
    }
  }

  const properties = Object.entries(ROUTE_INPUT_JSON_SCHEMA.properties ?? {}).filter(([key, field]) => field.readOnly !== true && !(key === 'id' && routeId !== undefined));
  return (
    <form
      class="route-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save(false);
      }}
    >
      {(errors.length > 0 || failure !== undefined) && (
        <div class="error-summary" role="alert" tabIndex={-1} id="route-form-errors">
          <h2>The route was not saved</h2>
          {failure !== undefined && <p>{failure}</p>}
          <ul>
            {errors.map((error) => (
              <li key={`${error.field}:${error.message}`}>
                <a href={`#${controlId(nearestControl(error.field))}`}>
                  {error.field}: {error.message}
                </a>
              </li>
            ))}
          </ul>
        </div>
      )}
      {routeId !== undefined && (
        <p>
          Id: <code>{routeId}</code>
        </p>
      )}
      {properties.map(([key, schema]) => (
        <SchemaField key={key} schema={schema} path={[key]} value={draft[key]} draft={draft} errors={errors} disabled={readOnly || saving} onChange={onChange} />
      ))}
      {!readOnly && (
        <div class="form-actions">
          <button type="submit" disabled={saving}>
            {routeId === undefined ? 'Create route' : 'Save route'}
          </button>
          <button type="button" class="secondary" disabled={saving} onClick={() => void save(true)}>
            Save as draft (disabled)
          </button>
          <a href={routeId === undefined ? `${appBase.pathname}routes` : `${appBase.pathname}routes/${encodeURIComponent(routeId)}`}>Cancel</a>
        </div>
      )}
    </form>
  );
}

function focusSummary(): void {
  requestAnimationFrame(() => document.getElementById('route-form-errors')?.focus());
}

/** `headers.request.set["X-A"]` -> the control of `headers.request.set`; `methods[2]` -> `methods`. */
function nearestControl(field: string): FieldPath {
  return field
    .replace(/\[.*$/, '')
    .split('.')
    .filter((part) => part !== '');
}
