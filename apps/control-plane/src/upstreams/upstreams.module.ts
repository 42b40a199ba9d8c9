import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClusterModule } from '../cluster/cluster.module';
import { UpstreamCaFileCheck } from './upstream-ca-file-check';
import { UpstreamCatalog } from './upstream-catalog.service';
import { UpstreamEntity } from './upstream.entity';
import { UpstreamReads } from './upstream-reads.service';
import { UpstreamStore } from './upstream-store';
import { UpstreamWrites } from './upstream-writes.service';
import { UpstreamsController } from './upstreams.controller';

/**
 * Owns the upstreams table and the upstream management API (docs/upstreams.md, section API).
 * Exports only the catalog: the routes API checks the upstream a route names against it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([UpstreamEntity]), ClusterModule],
  controllers: [UpstreamsController],
  providers: [UpstreamStore, UpstreamReads, UpstreamWrites, UpstreamCatalog, UpstreamCaFileCheck],
  exports: [UpstreamCatalog],
})
export class UpstreamsModule {}
