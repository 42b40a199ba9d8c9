import { Inject, Injectable } from '@nestjs/common';
import type { UpstreamDefinition } from '@gateway/route-model';
import { DomainError } from '../common/domain-error';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { caFileProblem } from './ca-file-rule';

/**
 * The CA file rule on every upstream the API writes (create, PUT, PATCH result): `tls.caFile`
 * inside GATEWAY_CA_DIRS and loadable here, else a 400 naming the field (decision 1 envelope).
 */
@Injectable()
export class UpstreamCaFileCheck {
  private readonly dirs: readonly string[];

  constructor(@Inject(CONTROL_PLANE_CONFIG) config: Pick<ControlPlaneConfig, 'caDirs'>) {
    this.dirs = config.caDirs;
  }

  /** The upstream itself when it may be stored. */
  checked(upstream: UpstreamDefinition): UpstreamDefinition {
    const file = upstream.tls?.caFile;
    if (file === undefined) return upstream;
    const message = caFileProblem('tls.caFile', file, this.dirs);
    if (message === undefined) return upstream;
    throw DomainError.fromFieldErrors([{ field: 'tls.caFile', message, code: 'VALIDATION_ERROR' }]);
  }
}
