import { useState } from 'preact/hooks';
import { ApiError } from './api-error';

export interface ActionState {
  busy: boolean;
  /** The API's message for a refusal that names no field (or a network failure). */
  error: string | undefined;
  /** Messages by the field the API's `details.fields` named. */
  fieldErrors: Record<string, string>;
}

/**
 * Runs one state-changing API call for a form or a button: busy while it runs, and its refusal
 * split into field messages (shown at the field) and a general one. Resolves to the call's value,
 * or undefined when it was refused.
 */
export function useAction(): [ActionState, <T>(call: () => Promise<T>) => Promise<T | undefined>, () => void] {
  const [state, setState] = useState<ActionState>({ busy: false, error: undefined, fieldErrors: {} });
  const run = async <T,>(call: () => Promise<T>): Promise<T | undefined> => {
    setState({ busy: true, error: undefined, fieldErrors: {} });
    try {
      const value = await call();
      setState({ busy: false, error: undefined, fieldErrors: {} });
      return value;
    } catch (error) {
      const apiError = error instanceof ApiError ? error : new ApiError(0, 'UNEXPECTED_ERROR', String(error));
      const fieldErrors = Object.fromEntries(apiError.fields.map((f) => [f.field, f.message]));
      setState({ busy: false, error: apiError.fields.length > 0 ? undefined : apiError.message, fieldErrors });
      return undefined;
    }
  };
  const clear = (): void => setState({ busy: false, error: undefined, fieldErrors: {} });
  return [state, run, clear];
}
