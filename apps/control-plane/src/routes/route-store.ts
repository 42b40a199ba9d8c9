import { Injectable } from '@nestjs/common';
import { IsNull, Not, type EntityManager } from 'typeorm';
import type { Route } from '@gateway/route-model';
import { AuditLogService } from '../audit/audit-log.service';
import { DomainError } from '../common/domain-error';
import { RouteChanges, type RouteSetChange } from '../cluster/route-changes.service';
import type { AuditActor } from '../audit/audit-actor';
import { RouteEntity } from './route.entity';
import { toRouteRow, type RouteResponse } from './route.mapper';

/** One audited change of the route set, as the use cases describe it inside their transaction. */
export interface RouteChangeOutcome {
  response: RouteResponse | undefined;
  /** `route.create`, `route.update`, ... */
  action: string;
  routeId: string;
  change: RouteSetChange;
  details?: Record<string, unknown>;
}

/**
 * The transaction-level building blocks every route use case shares: loading a row, the
 * read-only rule of file routes (decision 13), the path rule (decision 9) and committing a change
 * with its revision bump, change message and audit entry in one transaction.
 */
@Injectable()
export class RouteStore {
  constructor(
    private readonly changes: RouteChanges,
    private readonly audit: AuditLogService,
  ) {}

  /** Runs `work` in a transaction; the change, its revision and its audit entry commit together. */
  async commit(actor: AuditActor, work: (tx: EntityManager) => Promise<RouteChangeOutcome>): Promise<RouteResponse | undefined> {
    try {
      const { result } = await this.changes.commit(async (tx) => {
        const outcome = await work(tx);
        await this.audit.record({ actor: actor.email, ip: actor.ip, action: outcome.action, target: outcome.routeId, details: outcome.details }, tx);
        return { result: outcome.response, change: outcome.change };
      });
      return result;
    } catch (error) {
      throw translateConstraintError(error);
    }
  }

  /** A live (not soft-deleted) route, or 404 "Route not found". */
  async live(tx: EntityManager, id: string): Promise<RouteEntity> {
    const row = await tx.getRepository(RouteEntity).findOne({ where: { id } });
    if (row === null) throw new DomainError('ROUTE_NOT_FOUND');
    return row;
  }

  /** Any route, hidden ones included, or 404. */
  async any(tx: EntityManager, id: string): Promise<RouteEntity> {
    const row = await tx.getRepository(RouteEntity).findOne({ where: { id }, withDeleted: true });
    if (row === null) throw new DomainError('ROUTE_NOT_FOUND');
    return row;
  }

  async idTaken(tx: EntityManager, id: string): Promise<boolean> {
    return (await tx.getRepository(RouteEntity).count({ where: { id }, withDeleted: true })) > 0;
  }

  /** Decision 13: proxy.yml routes change only through proxy.yml. */
  writable(row: RouteEntity): RouteEntity {
    if (row.source === 'file') throw new DomainError('READ_ONLY_ROUTE', undefined, { id: row.id, source: 'file' });
    return row;
  }

  /**
   * Decision 9: an enabled route's path must not be another enabled, live route's. The unique
   * partial index UQ_routes_live_path holds the same rule for concurrent writers (see
   * translateConstraintError); this check gives the common case its answer without a failed write.
   */
  async assertPathFree(tx: EntityManager, route: Pick<Route, 'id' | 'path' | 'enabled'>): Promise<void> {
    if (!route.enabled) return;
    const holder = await tx.getRepository(RouteEntity).findOne({ where: { path: route.path, enabled: true, id: Not(route.id), deletedAt: IsNull() } });
    if (holder !== null) throw pathExists(route.path);
  }

  /** Inserts or updates the row of a canonical route; returns the saved row. */
  async save(tx: EntityManager, route: Route, existing?: RouteEntity): Promise<RouteEntity> {
    const repository = tx.getRepository(RouteEntity);
    const row = existing ?? repository.create();
    Object.assign(row, toRouteRow(route));
    return repository.save(row);
  }
}

function pathExists(path: string): DomainError {
  return new DomainError('PATH_EXISTS', undefined, { fields: [{ field: 'path', message: 'Path already exists', code: 'PATH_EXISTS' }], path });
}

interface DriverError {
  code?: string;
  constraint?: string;
  message?: string;
}

/**
 * A write that lost a race: two writers passed the checks and the database refused the second.
 * SQLite names the columns ("UNIQUE constraint failed: routes.path"), PostgreSQL the index.
 */
function translateConstraintError(error: unknown): unknown {
  if (error instanceof DomainError || typeof error !== 'object' || error === null) return error;
  const driver = ((error as { driverError?: DriverError }).driverError ?? error) as DriverError;
  const message = driver.message ?? '';
  if (driver.constraint === 'UQ_routes_live_path' || /UNIQUE constraint failed: routes\.path/.test(message)) {
    return new DomainError('PATH_EXISTS', undefined, { fields: [{ field: 'path', message: 'Path already exists', code: 'PATH_EXISTS' }] });
  }
  if ((driver.code === '23505' && /routes_pkey|PK_/.test(driver.constraint ?? '')) || /UNIQUE constraint failed: routes\.id/.test(message)) {
    return idTaken();
  }
  return error;
}

export function idTaken(): DomainError {
  return new DomainError('CONFLICT', 'Route id already exists', { fields: [{ field: 'id', message: 'Route id already exists', code: 'CONFLICT' }] });
}
