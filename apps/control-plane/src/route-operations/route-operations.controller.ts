import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth.decorators';
import { ok, type SuccessEnvelope } from '../common/envelope';
import { Actor, type AuditActor } from '../audit/audit-actor';
import { CachePurge } from './cache-purge.service';
import { CircuitBreakerOperations } from './circuit-breaker-operations.service';
import { RateLimitUsageReport } from './rate-limit-usage.service';
import { RouteHealth } from './route-health.service';
import type { CircuitBreakerResponse, RateLimitResponse, RouteHealthResponse } from './route-operation.mapper';
import { NoFields, RateLimitUsageQuery, USAGE_DEFAULT_TOP } from './route-operations.dto';
import { RouteOperationDocs } from './route-operations.openapi';

/** Per-route operations on every data plane (issues 4 and 5; docs/route-operations.md); admin only. */
@ApiTags('route operations')
@Roles('admin')
@Controller('api/routes/:id')
export class RouteOperationsController {
  constructor(
    private readonly breakers: CircuitBreakerOperations,
    private readonly health: RouteHealth,
    private readonly rateLimits: RateLimitUsageReport,
    private readonly cache: CachePurge,
  ) {}

  @RouteOperationDocs.breaker()
  @Get('circuit-breaker')
  async breaker(@Param('id') id: string, @Query() _query: NoFields): Promise<SuccessEnvelope<CircuitBreakerResponse>> {
    return ok(await this.breakers.status(id));
  }

  @RouteOperationDocs.trip()
  @Post('circuit-breaker/trip')
  @HttpCode(200)
  async trip(@Param('id') id: string, @Body() _body: NoFields, @Actor() actor: AuditActor): Promise<SuccessEnvelope<CircuitBreakerResponse>> {
    return ok(await this.breakers.apply(id, 'trip', actor));
  }

  @RouteOperationDocs.reset()
  @Post('circuit-breaker/reset')
  @HttpCode(200)
  async reset(@Param('id') id: string, @Body() _body: NoFields, @Actor() actor: AuditActor): Promise<SuccessEnvelope<CircuitBreakerResponse>> {
    return ok(await this.breakers.apply(id, 'reset', actor));
  }

  @RouteOperationDocs.rateLimit()
  @Get('rate-limit')
  async rateLimit(@Param('id') id: string, @Query() query: RateLimitUsageQuery): Promise<SuccessEnvelope<RateLimitResponse>> {
    return ok(await this.rateLimits.report(id, query.top ?? USAGE_DEFAULT_TOP));
  }

  @RouteOperationDocs.health()
  @Get('health')
  async routeHealth(@Param('id') id: string, @Query() _query: NoFields): Promise<SuccessEnvelope<RouteHealthResponse>> {
    return ok(await this.health.status(id));
  }

  @RouteOperationDocs.purgeCache()
  @Delete('cache')
  @HttpCode(204)
  async purgeCache(@Param('id') id: string, @Query() _query: NoFields, @Actor() actor: AuditActor): Promise<void> {
    await this.cache.purge(id, actor);
  }
}
