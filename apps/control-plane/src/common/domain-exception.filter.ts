import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from './domain-error';
import { messageOf, statusOf, type ErrorCode } from './error-codes';
import type { ErrorEnvelope } from './envelope';

/** Errors thrown by express middleware (body-parser) carry these. */
interface MiddlewareError {
  status?: number;
  statusCode?: number;
  type?: string;
}

/**
 * The one place that turns an error into a response (style guide: one error catalogue). Domain
 * errors keep their code; framework exceptions (unknown route, malformed JSON, throttling) are
 * mapped to a code by status; anything else is a 500 whose message never reaches the client.
 */
@Catch()
export class DomainExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const req = http.getRequest<Request>();
    const error = this.toDomainError(exception, req);
    const status = statusOf(error.code);
    const { text, fixed } = messageOf(error.code);
    const body: ErrorEnvelope = { success: false, error: fixed ? text : error.message, code: error.code };
    if (error.details !== undefined) body.details = error.details;
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(status).json(body);
  }

  private toDomainError(exception: unknown, req: Request): DomainError {
    if (exception instanceof DomainError) return exception;
    if (exception instanceof HttpException) return fromHttpStatus(exception.getStatus(), req);
    const middleware = (exception ?? {}) as MiddlewareError;
    if (middleware.type === 'entity.parse.failed') return MALFORMED_JSON();
    if (middleware.type === 'entity.too.large') return new DomainError('PAYLOAD_TOO_LARGE');
    const status = middleware.status ?? middleware.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return fromHttpStatus(status, req);
    this.logger.error(`unhandled error on ${req.method} ${req.path}: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`);
    return new DomainError('INTERNAL_ERROR');
  }
}

function fromHttpStatus(status: number, req: Request): DomainError {
  const code = codeForStatus(status);
  if (code === 'NOT_FOUND') return new DomainError('NOT_FOUND', `Cannot ${req.method} ${req.path}`);
  // Nest maps body-parser's SyntaxError (and a bad %-encoding in the URL) to a bare 400; our own
  // validation throws DomainErrors, so a framework 400 is always one of those two.
  if (status === 400) return req.is('json') ? MALFORMED_JSON() : new DomainError('VALIDATION_ERROR', 'Malformed request');
  return new DomainError(code);
}

const MALFORMED_JSON = (): DomainError =>
  new DomainError('VALIDATION_ERROR', 'Malformed JSON body', { fields: [{ field: '(body)', message: 'Malformed JSON body', code: 'VALIDATION_ERROR' }] });

function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
    case 405:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 422:
      return 'BUSINESS_RULE';
    case 429:
      return 'RATE_LIMITED';
    case 501:
      return 'NOT_IMPLEMENTED';
    case 503:
      return 'SERVICE_UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR';
  }
}
