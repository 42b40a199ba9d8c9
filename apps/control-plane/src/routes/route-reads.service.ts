import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import { DomainError } from '../common/domain-error';
import type { RouteListQuery } from './route-list-query';
import { RouteEntity } from './route.entity';
import { toRouteResponse, type RouteResponse } from './route.mapper';

/** `%`, `_` and the escape character itself are literal in a search (ESCAPE '\'). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The list (decision 5) and one route. */
@Injectable()
export class RouteReads {
  constructor(@InjectRepository(RouteEntity) private readonly routes: Repository<RouteEntity>) {}

  async list(query: RouteListQuery): Promise<{ items: RouteResponse[]; total: number }> {
    const qb = this.routes.createQueryBuilder('route').withDeleted();
    qb.where(query.deleted ? 'route.deletedAt IS NOT NULL' : 'route.deletedAt IS NULL');
    if (query.enabled !== undefined) qb.andWhere('route.enabled = :enabled', { enabled: query.enabled });
    if (query.search !== undefined) {
      qb.andWhere("(LOWER(route.path) LIKE :search ESCAPE '\\' OR LOWER(route.description) LIKE :search ESCAPE '\\')", {
        search: `%${likeLiteral(query.search.toLowerCase())}%`,
      });
    }
    // `tags` is the JSON text of a string array: an element is its JSON string between `[`/`,` and `,`/`]`.
    if (query.tag !== undefined) qb.andWhere("route.tags LIKE :tag ESCAPE '\\'", { tag: `%${likeLiteral(JSON.stringify(query.tag))}%` });
    qb.orderBy('route.createdAt', 'ASC').addOrderBy('route.id', 'ASC').skip(query.offset).take(query.limit);
    const [rows, total] = await qb.getManyAndCount();
    return { items: rows.map(toRouteResponse), total };
  }

  async get(id: string): Promise<RouteResponse> {
    const row = await this.routes.findOne({ where: { id, deletedAt: IsNull() } });
    if (row === null) throw new DomainError('ROUTE_NOT_FOUND');
    return toRouteResponse(row);
  }

  /** For the upstream test: a live route, disabled ones included. */
  async live(id: string): Promise<RouteEntity> {
    const row = await this.routes.findOne({ where: { id, deletedAt: IsNull() } });
    if (row === null) throw new DomainError('ROUTE_NOT_FOUND');
    return row;
  }
}
