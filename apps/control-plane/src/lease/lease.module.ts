import { Module } from '@nestjs/common';
import { Lease } from './lease.service';

/** The Lease service: run-once work across control-plane instances (docs/control-plane.md "Leases"). */
@Module({
  providers: [Lease],
  exports: [Lease],
})
export class LeaseModule {}
