import { All, Controller, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { DomainError } from '../common/domain-error';

/**
 * Deny by default also for paths no controller serves: an unknown `/api/...` path goes through
 * the global guards (throttling, authentication) like any other, so an anonymous caller learns
 * nothing about which paths exist (401), and an authenticated one gets the envelope's 404.
 * Its module is imported last (AppModule), so every real controller is matched before it.
 */
@ApiExcludeController()
@Controller('api')
export class ApiFallbackController {
  @All(['', '*path'])
  notFound(@Req() req: Request): never {
    throw new DomainError('NOT_FOUND', `Cannot ${req.method} ${req.path}`);
  }
}
