import { Injectable } from '@nestjs/common';
import { upstreamTargets, type UpstreamDefinition } from '@gateway/route-model';
import type { AuditActor } from '../audit/audit-actor';
import { DomainError } from '../common/domain-error';
import { UpstreamCaFileCheck } from './upstream-ca-file-check';
import { UpstreamEntity } from './upstream.entity';
import { mergeUpstreamPatch, parseUpstreamBody } from './upstream-input';
import { toUpstreamResponse, type UpstreamResponse } from './upstream.mapper';
import { UpstreamStore } from './upstream-store';

/** What the audit log records of an upstream: where traffic goes and how it is spread. */
function auditDetails(upstream: UpstreamDefinition): Record<string, unknown> {
  return { targets: upstreamTargets(upstream).map((t) => ({ url: t.url, weight: t.weight })), algorithm: upstream.balancing?.algorithm };
}

/** Create (POST), full replacement (PUT), merge (PATCH) and delete of API upstreams. */
@Injectable()
export class UpstreamWrites {
  constructor(
    private readonly store: UpstreamStore,
    private readonly caFiles: UpstreamCaFileCheck,
  ) {}

  async create(body: unknown, actor: AuditActor): Promise<UpstreamResponse> {
    const upstream = this.caFiles.checked(parseUpstreamBody(body));
    return required(
      await this.store.commit(actor, async (tx) => {
        await this.store.assertNameFree(tx, upstream.name);
        const saved = toUpstreamResponse(await this.store.save(tx, upstream));
        return { response: saved, action: 'upstream.create', name: upstream.name, details: auditDetails(upstream) };
      }),
    );
  }

  /** PUT: the body is the whole upstream; optional fields it leaves out go back to their defaults. */
  async replace(name: string, body: unknown, actor: AuditActor): Promise<UpstreamResponse> {
    return this.update(name, actor, 'upstream.replace', () => parseUpstreamBody(body, name));
  }

  /** PATCH: the body is merged over the stored upstream (RFC 7396), then validated as a whole. */
  async patch(name: string, body: unknown, actor: AuditActor): Promise<UpstreamResponse> {
    return this.update(name, actor, 'upstream.patch', (stored) => mergeUpstreamPatch(stored, body));
  }

  /** Refused (409) while any route, a soft-deleted one included, names the upstream. */
  async remove(name: string, actor: AuditActor): Promise<void> {
    await this.store.commit(actor, async (tx) => {
      const row = await this.store.writable(tx, name);
      const routes = await this.store.namingRoutes(tx, name);
      if (routes.length > 0) {
        throw new DomainError('UPSTREAM_IN_USE', `Upstream '${name}' is named by ${routes.length} route(s): ${routes.slice(0, 10).join(', ')}`, { name, routes: routes.slice(0, 100) });
      }
      await tx.getRepository(UpstreamEntity).delete({ name });
      return { response: undefined, action: 'upstream.delete', name, details: auditDetails(row.definition) };
    });
  }

  private async update(name: string, actor: AuditActor, action: string, next: (stored: UpstreamDefinition) => UpstreamDefinition): Promise<UpstreamResponse> {
    return required(
      await this.store.commit(actor, async (tx) => {
        const row = await this.store.writable(tx, name);
        const upstream = this.caFiles.checked(next({ ...row.definition, name: row.name }));
        const saved = toUpstreamResponse(await this.store.save(tx, upstream, row));
        return { response: saved, action, name, details: auditDetails(upstream) };
      }),
    );
  }
}

function required(response: UpstreamResponse | undefined): UpstreamResponse {
  if (response === undefined) throw new Error('upstream write returned no upstream');
  return response;
}
