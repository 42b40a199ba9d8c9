import { Injectable } from '@nestjs/common';

/**
 * Whether this control plane is stopping: from the stop signal on, /health/serving and
 * /health/ready answer 503 so load balancers stop sending it API calls while it finishes the
 * ones in flight (docs/deployment.md, "Graceful drain").
 */
@Injectable()
export class DrainState {
  private stopping = false;

  get draining(): boolean {
    return this.stopping;
  }

  begin(): void {
    this.stopping = true;
  }
}
