import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClusterModule } from '../cluster/cluster.module';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeyReads } from './api-key-reads.service';
import { ApiKeyWrites } from './api-key-writes.service';
import { ApiKeysController } from './api-keys.controller';

/** Owns the api_keys table and /api/api-keys (docs/api-keys.md). Digests reach data planes in the route snapshot. */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity]), ClusterModule],
  controllers: [ApiKeysController],
  providers: [ApiKeyReads, ApiKeyWrites],
})
export class ApiKeysModule {}
