import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClusterModule } from '../cluster/cluster.module';
import { LeaseModule } from '../lease/lease.module';
import { SettingsModule } from '../settings/settings.module';
import { UpstreamsModule } from '../upstreams/upstreams.module';
import { RouteEntity } from './route.entity';
import { RouteLifecycle } from './route-lifecycle.service';
import { RouteProbe } from './route-probe.service';
import { RoutePurge } from './route-purge.service';
import { RouteReads } from './route-reads.service';
import { RouteStore } from './route-store';
import { RouteWrites } from './route-writes.service';
import { RoutesController } from './routes.controller';

/** Owns the routes table and the route management API (docs/routes-api.md). */
@Module({
  imports: [TypeOrmModule.forFeature([RouteEntity]), ClusterModule, SettingsModule, LeaseModule, UpstreamsModule],
  controllers: [RoutesController],
  providers: [RouteStore, RouteReads, RouteWrites, RouteLifecycle, RoutePurge, RouteProbe],
  exports: [TypeOrmModule, RouteReads],
})
export class RoutesModule {}
