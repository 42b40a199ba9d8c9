import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { UpstreamDefinition } from '@gateway/route-model';
import type { AuditActor } from '../audit/audit-actor';
import { AuditLogService } from '../audit/audit-log.service';
import { ConfigRevisionService } from '../cluster/config-revision.service';
import { ProxyFileStateStore } from '../cluster/proxy-file-state.store';
import { RouteChanges } from '../cluster/route-changes.service';
import { DomainError } from '../common/domain-error';
import { RouteEntity } from '../routes/route.entity';
import { UpstreamEntity } from './upstream.entity';
import { toUpstreamRow, type UpstreamResponse } from './upstream.mapper';

/** One audited change of the upstream set, as a use case describes it inside its transaction. */
export interface UpstreamChangeOutcome {
  response: UpstreamResponse | undefined;
  /** `upstream.create`, `upstream.replace`, ... */
  action: string;
  name: string;
  details?: Record<string, unknown>;
}

/**
 * The transaction-level building blocks of the upstream use cases: loading a row, the read-only
 * rule of proxy.yml upstreams, name uniqueness across file and API, the routes that name an
 * upstream, and committing a change with its revision bump, `reloaded` message and audit entry.
 */
@Injectable()
export class UpstreamStore {
  constructor(
    private readonly changes: RouteChanges,
    private readonly revisions: ConfigRevisionService,
    private readonly fileState: ProxyFileStateStore,
    private readonly audit: AuditLogService,
  ) {}

  /**
   * Runs `work` in a transaction that first takes the revision lock (PostgreSQL; SQLite has one
   * writer): a route write naming the upstream and its deletion cannot both pass their checks.
   * Data planes fetch the whole upstream set on the `reloaded` message (one upstream changes the
   * targets of every route naming it, so there is no per-route message to send).
   */
  async commit(actor: AuditActor, work: (tx: EntityManager) => Promise<UpstreamChangeOutcome>): Promise<UpstreamResponse | undefined> {
    const { result } = await this.changes.commit(async (tx) => {
      await this.revisions.lock(tx);
      const outcome = await work(tx);
      await this.audit.record({ actor: actor.email, ip: actor.ip, action: outcome.action, target: outcome.name, details: outcome.details }, tx);
      return { result: outcome.response, change: { kind: 'reloaded' } };
    });
    return result;
  }

  /** proxy.yml's upstreams as of the last reconciliation. */
  async fileUpstreams(tx: EntityManager): Promise<UpstreamDefinition[]> {
    return (await this.fileState.read(tx)).upstreams;
  }

  /** An API upstream's row to change; 422 for a proxy.yml upstream, 404 for an unknown name. */
  async writable(tx: EntityManager, name: string): Promise<UpstreamEntity> {
    const row = await tx.getRepository(UpstreamEntity).findOneBy({ name });
    if (row !== null) return row;
    if ((await this.fileUpstreams(tx)).some((u) => u.name === name)) throw new DomainError('READ_ONLY_UPSTREAM', undefined, { name, source: 'file' });
    throw new DomainError('UPSTREAM_NOT_FOUND', undefined, { name });
  }

  /** Names are unique across proxy.yml and the API: routes name upstreams by them. */
  async assertNameFree(tx: EntityManager, name: string): Promise<void> {
    const taken = (await tx.getRepository(UpstreamEntity).countBy({ name })) > 0 || (await this.fileUpstreams(tx)).some((u) => u.name === name);
    if (taken) throw new DomainError('CONFLICT', 'Upstream name already exists', { fields: [{ field: 'name', message: 'Upstream name already exists', code: 'CONFLICT' }] });
  }

  /**
   * Ids of the routes that name `name`, soft-deleted ones included (a restore would bring back a
   * route naming a missing upstream). The LIKE narrows the rows; the definition decides.
   */
  async namingRoutes(tx: EntityManager, name: string): Promise<string[]> {
    const rows = await tx
      .getRepository(RouteEntity)
      .createQueryBuilder('route')
      .withDeleted()
      .where("route.definition LIKE :quoted ESCAPE '\\'", { quoted: `%${JSON.stringify(name).replace(/[\\%_]/g, (c) => `\\${c}`)}%` })
      .orderBy('route.id', 'ASC')
      .getMany();
    return rows.filter((row) => row.definition.upstreamName === name || row.definition.upstream === name).map((row) => row.id);
  }

  async save(tx: EntityManager, upstream: UpstreamDefinition, existing?: UpstreamEntity): Promise<UpstreamEntity> {
    const repository = tx.getRepository(UpstreamEntity);
    const row = existing ?? repository.create();
    Object.assign(row, toUpstreamRow(upstream));
    return repository.save(row);
  }
}
