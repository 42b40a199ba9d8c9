import { Module } from '@nestjs/common';
import { RoutesModule } from '../routes/routes.module';
import { CachePurge } from './cache-purge.service';
import { CircuitBreakerOperations } from './circuit-breaker-operations.service';
import { CommandDispatcher } from './command-dispatcher.service';
import { DataPlaneDirectory } from './data-plane-directory.service';
import { RateLimitUsageReport } from './rate-limit-usage.service';
import { RouteHealth } from './route-health.service';
import { RouteOperationsController } from './route-operations.controller';

/**
 * Per-route operations applied on every data plane through the bus (docs/route-operations.md):
 * breaker trip/reset/status, rate-limit usage, health, cache purge.
 */
@Module({
  imports: [RoutesModule],
  controllers: [RouteOperationsController],
  providers: [DataPlaneDirectory, CommandDispatcher, CircuitBreakerOperations, RouteHealth, RateLimitUsageReport, CachePurge],
  // GET /api/logs asks the data planes for their recent lines through the same request/reply.
  exports: [DataPlaneDirectory, CommandDispatcher],
})
export class RouteOperationsModule {}
