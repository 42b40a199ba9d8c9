import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Route } from '@gateway/route-model';
import { TransactionRunner } from '../database/transaction-runner';
import { ConfigRevisionService } from './config-revision.service';
import { RouteChangePublisher } from './route-change-publisher.service';

/** A change of the route set, as the message it becomes (the version is added on commit). */
export type RouteSetChange =
  | { kind: 'upserted'; route: Route }
  | { kind: 'deleted'; routeId: string }
  | { kind: 'reloaded' };

export interface RouteChangeWork<T> {
  result: T;
  /** Omit (or undefined) when the work changed nothing: no bump, no message. */
  change?: RouteSetChange;
}

/**
 * The one way to change the route set: runs `work` in a transaction, bumps the revision in that
 * same transaction when it reports a change, and publishes the message with that revision after
 * the commit. A rolled-back change publishes nothing and leaves the revision alone.
 *
 *   const { result, version } = await routeChanges.commit(async (tx) => {
 *     const row = await tx.getRepository(RouteEntity).save(...);
 *     const route = toCanonicalRoute(row);
 *     return { result: route, change: { kind: 'upserted', route } };
 *   });
 */
@Injectable()
export class RouteChanges {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly revisions: ConfigRevisionService,
    private readonly publisher: RouteChangePublisher,
  ) {}

  async commit<T>(work: (tx: EntityManager) => Promise<RouteChangeWork<T>>): Promise<{ result: T; version?: number }> {
    const committed = await this.transactions.run(async (tx) => {
      const outcome = await work(tx);
      if (outcome.change === undefined) return { outcome, version: undefined };
      return { outcome, version: await this.revisions.bump(tx) };
    });
    const { outcome, version } = committed;
    if (outcome.change !== undefined && version !== undefined) {
      await this.publisher.publish({ ...outcome.change, version });
    }
    return { result: outcome.result, version };
  }
}
