import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { DomainError } from './domain-error';

/**
 * DTO validation (for bodies that are not routes; routes go through libs/route-model): unknown
 * fields refused, every failing field listed in `details.fields`.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    exceptionFactory: (errors: ValidationError[]) => {
      const fields = flattenValidationErrors(errors);
      return new DomainError('VALIDATION_ERROR', fields[0]?.message ?? 'Validation failed', { fields });
    },
  });
}

/** class-validator's tree as `details.fields`: `a.b.c` paths, every failing field. */
export function flattenValidationErrors(errors: ValidationError[], prefix = ''): Array<{ field: string; message: string; code: string }> {
  const out: Array<{ field: string; message: string; code: string }> = [];
  for (const error of errors) {
    const field = prefix === '' ? error.property : `${prefix}.${error.property}`;
    for (const message of Object.values(error.constraints ?? {})) out.push({ field, message, code: 'VALIDATION_ERROR' });
    if (error.children && error.children.length > 0) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}
