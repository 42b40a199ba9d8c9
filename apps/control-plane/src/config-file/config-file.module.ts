import { Module } from '@nestjs/common';
import { ClusterModule } from '../cluster/cluster.module';
import { ProxyFileReconciler } from './proxy-file-reconciler.service';

/** proxy.yml ownership: reconciliation into the store (start, SIGHUP, `gateway config:reload`). */
@Module({
  imports: [ClusterModule],
  providers: [ProxyFileReconciler],
  exports: [ProxyFileReconciler],
})
export class ConfigFileModule {}
