import type { FieldError } from '@gateway/route-model';
import { messageOf, type ErrorCode } from './error-codes';

export type ErrorDetails = Record<string, unknown>;

/**
 * What services throw (never an HTTP exception). The one exception filter turns it into a status
 * and the decisions' envelope; `details` reaches the client, so it never holds secrets.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: ErrorDetails,
  ) {
    super(message ?? messageOf(code).text);
    this.name = 'DomainError';
  }

  /**
   * A validation failure from libs/route-model (or a DTO): the code of the first error decides
   * (INVALID_PATH -> "Invalid path format", ...) and `details.fields` lists every failing field.
   */
  static fromFieldErrors(errors: readonly FieldError[], fallback: ErrorCode = 'VALIDATION_ERROR'): DomainError {
    const code = knownCode(errors[0]?.code) ?? fallback;
    return new DomainError(code, errors[0]?.message, { fields: errors.map((e) => ({ field: e.field, message: e.message, code: e.code })) });
  }
}

function knownCode(code: string | undefined): ErrorCode | undefined {
  switch (code) {
    case 'VALIDATION_ERROR':
    case 'INVALID_PATH':
    case 'INVALID_URL':
    case 'RESERVED_PATH':
    case 'UNKNOWN_UPSTREAM':
    case 'PATH_EXISTS':
      return code;
    default:
      return undefined;
  }
}
