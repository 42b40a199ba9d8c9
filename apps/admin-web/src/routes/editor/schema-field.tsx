import type { FieldError, JsonSchema } from '@gateway/route-model';
import { controlId, defaultsOf, errorsFor, fieldName, type Draft, type FieldPath } from './draft';
import { fieldPresentation, isShown } from './field-presentation';
import { listText, mapText, parseList, parseMap } from './text-forms';

export interface FieldProps {
  schema: JsonSchema;
  path: FieldPath;
  value: unknown;
  /** The whole draft: some fields show or hide with another's value (auth.jwt with auth.type). */
  draft: Draft;
  errors: readonly FieldError[];
  disabled: boolean;
  onChange: (path: FieldPath, value: unknown) => void;
}

/**
 * One field of the route, built from the route model's JSON Schema: its control from the type,
 * its help from the description, bounds and default. Objects become fieldsets; optional blocks
 * (rate limit, health check, ...) are switched on with the schema's defaults.
 */
export function SchemaField(props: FieldProps) {
  const { schema, path } = props;
  if (!isShown(path, props.draft)) return null;
  if (schema.type === 'object' && schema.properties !== undefined) return <ObjectBlock {...props} />;
  const id = controlId(path);
  const own = errorsFor(props.errors, path);
  const { label, help } = fieldPresentation(schema, path);
  const describedBy = [`${id}-help`, ...(own.length > 0 ? [`${id}-error`] : [])].join(' ');
  const common = { id, name: fieldName(path), disabled: props.disabled, 'aria-describedby': describedBy, 'aria-invalid': own.length > 0 ? ('true' as const) : undefined };
  const control = controlFor(props, common);
  return (
    <div class={`form-field${schema.type === 'boolean' ? ' check' : ''}`}>
      {schema.type === 'array' && schema.items?.enum !== undefined ? (
        <fieldset class="choices" aria-describedby={describedBy}>
          <legend>{label}</legend>
          {control}
        </fieldset>
      ) : schema.type === 'boolean' ? (
        <>
          {control}
          <label for={id}>{label}</label>
        </>
      ) : (
        <>
          <label for={id}>{label}</label>
          {control}
        </>
      )}
      <p class="help" id={`${id}-help`}>
        {help}
      </p>
      {own.length > 0 && (
        <p class="field-error" id={`${id}-error`}>
          {own.map((error) => error.message).join('; ')}
        </p>
      )}
    </div>
  );
}

type Common = { id: string; name: string; disabled: boolean; 'aria-describedby': string; 'aria-invalid': 'true' | undefined };

function controlFor(props: FieldProps, common: Common) {
  const { schema, path, value, onChange } = props;
  const set = (next: unknown) => onChange(path, next);
  if (schema.type === 'boolean') {
    return <input type="checkbox" {...common} checked={value === undefined ? schema.default === true : value === true} onChange={(e) => set(e.currentTarget.checked)} />;
  }
  if (schema.type === 'string' && schema.enum !== undefined) {
    const unavailable = fieldPresentation(schema, path).unavailable;
    return (
      <select {...common} value={typeof value === 'string' ? value : ''} onChange={(e) => set(e.currentTarget.value === '' ? undefined : e.currentTarget.value)}>
        {schema.default === undefined && <option value="">(not set)</option>}
        {schema.enum.map((option) => (
          <option key={option} value={option} disabled={unavailable.includes(option)}>
            {unavailable.includes(option) ? `${option} (not available)` : option}
          </option>
        ))}
      </select>
    );
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    return (
      <input
        type="number"
        {...common}
        step={schema.type === 'integer' ? 1 : 'any'}
        min={schema.minimum}
        max={schema.maximum}
        placeholder={schema.default === undefined ? '' : String(schema.default)}
        value={value === undefined ? '' : String(value)}
        onInput={(e) => {
          const text = e.currentTarget.value.trim();
          // A number the browser cannot parse is sent as typed: the model names the field.
          set(text === '' ? undefined : Number.isFinite(Number(text)) ? Number(text) : text);
        }}
      />
    );
  }
  if (schema.type === 'array' && schema.items?.enum !== undefined) return <ChoiceList {...props} />;
  if (schema.type === 'array') {
    const numeric = schema.items?.type === 'integer' || schema.items?.type === 'number';
    return (
      <input
        type="text"
        {...common}
        value={listText(value)}
        placeholder={Array.isArray(schema.default) ? schema.default.join(', ') : ''}
        onChange={(e) => set(parseList(e.currentTarget.value, numeric))}
      />
    );
  }
  if (schema.type === 'object') {
    return <textarea {...common} rows={3} value={mapText(value)} placeholder="Name: value, one a line" onChange={(e) => set(parseMap(e.currentTarget.value))} />;
  }
  return (
    <input
      type="text"
      inputMode={path.at(-1) === 'upstream' || path.at(-1) === 'url' ? 'url' : 'text'}
      {...common}
      value={typeof value === 'string' ? value : value === undefined ? '' : String(value)}
      placeholder={fieldPresentation(schema, path, props.draft).placeholder}
      maxLength={schema.maxLength}
      onInput={(e) => set(e.currentTarget.value === '' && schema.default === undefined ? undefined : e.currentTarget.value)}
    />
  );
}

/** An array of choices (methods, vary-by keys, JWT algorithms): one checkbox each. */
function ChoiceList({ schema, path, value, onChange, disabled }: FieldProps) {
  const options = schema.items?.enum ?? [];
  // Absent means the default; for methods that is every method (spec 2.1).
  const fallback = Array.isArray(schema.default) ? (schema.default as string[]) : fieldName(path) === 'methods' ? options : [];
  const chosen = Array.isArray(value) ? (value as string[]) : fallback;
  const toggle = (option: string, on: boolean) => {
    const next = options.filter((o) => (o === option ? on : chosen.includes(o)));
    onChange(path, fieldName(path) === 'methods' && next.length === options.length ? undefined : next);
  };
  return (
    <div class="choice-row">
      {options.map((option) => {
        const id = `${controlId(path)}-${option}`;
        return (
          <span class="choice" key={option}>
            <input type="checkbox" id={id} checked={chosen.includes(option)} disabled={disabled} onChange={(e) => toggle(option, e.currentTarget.checked)} />
            <label for={id}>{option}</label>
          </span>
        );
      })}
    </div>
  );
}

/** A block of fields; an optional block has a switch that adds it with its defaults or removes it. */
function ObjectBlock(props: FieldProps) {
  const { schema, path, value, onChange } = props;
  const { label, help, optional } = fieldPresentation(schema, path);
  const present = typeof value === 'object' && value !== null;
  const switchId = `${controlId(path)}-on`;
  const block = present ? (value as Draft) : {};
  return (
    <fieldset class={`block depth-${path.length}`}>
      <legend>{label}</legend>
      <p class="help">{help}</p>
      {errorsFor(props.errors, path)
        .filter((error) => error.field === fieldName(path))
        .map((error) => (
          <p class="field-error" key={error.message}>
            {error.message}
          </p>
        ))}
      {optional && (
        <div class="form-field check">
          <input type="checkbox" id={switchId} checked={present} disabled={props.disabled} onChange={(e) => onChange(path, e.currentTarget.checked ? defaultsOf(schema) : undefined)} />
          <label for={switchId}>Configure {label.toLowerCase()}</label>
        </div>
      )}
      {(present || !optional) &&
        Object.entries(schema.properties ?? {})
          .filter(([, field]) => field.readOnly !== true)
          .map(([key, field]) => <SchemaField {...props} key={key} schema={field} path={[...path, key]} value={block[key]} />)}
    </fieldset>
  );
}
