import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LeaseModule } from '../lease/lease.module';
import { AiIncidentEntity } from './ai-incident.entity';
import { AiIncidentsController } from './ai-incidents.controller';
import { AiIncidents } from './ai-incidents.service';
import { IncidentGrouper } from './incident-grouper.service';

/** AI incidents (docs/ai.md): events grouped by route or upstream, edited and closed by people. */
@Module({
  imports: [TypeOrmModule.forFeature([AiIncidentEntity]), LeaseModule],
  controllers: [AiIncidentsController],
  providers: [AiIncidents, IncidentGrouper],
  // The analysis reads an incident and adds its summary to the timeline.
  exports: [AiIncidents],
})
export class AiIncidentsModule {}
