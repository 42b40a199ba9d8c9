import type { ErrorBody, FieldError } from './api-types';

/** A refused or failed API call: the envelope's code and message, or NETWORK_ERROR when none came. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: FieldError[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static fromBody(status: number, body: unknown): ApiError {
    if (isErrorBody(body)) return new ApiError(status, body.code, body.error, body.details?.fields ?? []);
    return new ApiError(status, 'UNEXPECTED_RESPONSE', `The server answered ${status}`);
  }
}

/** Any failure as one line for the page: the API's message and code, with the fields it names. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return String(error);
  return [`${error.message} (${error.code})`, ...error.fields.map((f) => `${f.field}: ${f.message}`)].join('; ');
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && (body as ErrorBody).success === false && typeof (body as ErrorBody).code === 'string';
}
