import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigRevisionEntity } from './config-revision.entity';
import { ConfigRevisionService } from './config-revision.service';
import { ProxyFileStateEntity } from './proxy-file-state.entity';
import { ProxyFileStateStore } from './proxy-file-state.store';
import { RouteChangePublisher } from './route-change-publisher.service';
import { RouteChanges } from './route-changes.service';
import { RouteSnapshotBuilder } from './route-snapshot.builder';
import { SnapshotController } from './snapshot.controller';

/** Change propagation: the revision, publishing after commit, heartbeats, snapshots for data planes. */
@Module({
  imports: [TypeOrmModule.forFeature([ConfigRevisionEntity, ProxyFileStateEntity])],
  controllers: [SnapshotController],
  providers: [ConfigRevisionService, RouteChangePublisher, RouteChanges, RouteSnapshotBuilder, ProxyFileStateStore],
  exports: [ConfigRevisionService, RouteChangePublisher, RouteChanges, RouteSnapshotBuilder, ProxyFileStateStore],
})
export class ClusterModule {}
