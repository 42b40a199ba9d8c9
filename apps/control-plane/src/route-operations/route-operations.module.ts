import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BreakerHoldEntity } from './breaker-hold.entity';
import { BreakerHolds } from './breaker-holds.service';
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
  imports: [RoutesModule, TypeOrmModule.forFeature([BreakerHoldEntity])],
  controllers: [RouteOperationsController],
  providers: [DataPlaneDirectory, CommandDispatcher, CircuitBreakerOperations, RouteHealth, RateLimitUsageReport, CachePurge, BreakerHolds],
  // GET /api/logs asks the data planes for their recent lines through the same request/reply.
  // Runbooks hold breakers OPEN through BreakerHolds.
  exports: [DataPlaneDirectory, CommandDispatcher, BreakerHolds],
})
export class RouteOperationsModule {}
