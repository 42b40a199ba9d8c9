import { Controller, Get, Headers, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { RouteSnapshot } from '@gateway/events';
import { Public } from '../auth/auth.decorators';
import { DomainError } from '../common/domain-error';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { clusterTokenMatches } from './cluster-token';
import { RouteSnapshotBuilder } from './route-snapshot.builder';

/**
 * Data planes fetch the route set here (contracts). Not a management endpoint: the cluster token,
 * not a user token, opens it; the bare snapshot is returned (no envelope). 404 while no
 * CLUSTER_TOKEN is configured, so an unconfigured gateway does not even reveal it exists.
 * Never in the public OpenAPI document: it is a contract between the planes, not the management API.
 */
@ApiExcludeController()
@Public()
@Controller('internal/cluster')
export class SnapshotController {
  constructor(
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    private readonly snapshots: RouteSnapshotBuilder,
  ) {}

  @Get('snapshot')
  async snapshot(@Headers('authorization') authorization: string | undefined): Promise<RouteSnapshot> {
    if (this.config.clusterToken === undefined) throw new DomainError('NOT_FOUND', 'Not Found');
    if (!clusterTokenMatches(this.config.clusterToken, authorization)) throw new DomainError('UNAUTHORIZED');
    return this.snapshots.build();
  }
}
