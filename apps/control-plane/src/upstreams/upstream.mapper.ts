import type { UpstreamDefinition, UpstreamSource } from '@gateway/route-model';
import type { UpstreamEntity } from './upstream.entity';

/**
 * What the API answers for one upstream: the canonical upstream (libs/route-model), its `source`,
 * and for API upstreams their ISO timestamps (proxy.yml upstreams have none: the file is their record).
 */
export type UpstreamResponse = UpstreamDefinition & { source: UpstreamSource; createdAt?: string; updatedAt?: string };

/** The stored definition of a canonical upstream (source and timestamps stay with the row). */
export function toUpstreamRow(upstream: UpstreamDefinition): Pick<UpstreamEntity, 'name' | 'definition'> {
  const { source: _source, ...definition } = upstream;
  return { name: upstream.name, definition };
}

export function toUpstreamResponse(entity: UpstreamEntity): UpstreamResponse {
  return { ...entity.definition, name: entity.name, source: 'api', createdAt: entity.createdAt.toISOString(), updatedAt: entity.updatedAt.toISOString() };
}

export function fileUpstreamResponse(upstream: UpstreamDefinition): UpstreamResponse {
  return { ...upstream, source: 'file' };
}

/**
 * Every upstream data planes serve and routes may name: proxy.yml's, then the API's, each with its
 * `source`. Names are unique across both (the API refuses a file upstream's name; reconciliation
 * refuses an API upstream's), so the order only keeps snapshots stable.
 */
export function upstreamCatalog(fileUpstreams: readonly UpstreamDefinition[], apiRows: readonly UpstreamEntity[]): UpstreamDefinition[] {
  return [...fileUpstreams.map((u) => ({ ...u, source: 'file' as const })), ...apiRows.map((row) => ({ ...row.definition, name: row.name, source: 'api' as const }))];
}
