import type { Provider } from '@nestjs/common';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { WebhookTargetRule } from './webhook-target-rule';

/**
 * The one place the webhook target rule is built: when the shared outbound-target rule lands
 * (libs/outbound-target), this factory is what points at it.
 */
export const WebhookTargetRuleProvider: Provider = {
  provide: WebhookTargetRule,
  inject: [CONTROL_PLANE_CONFIG],
  useFactory: (config: ControlPlaneConfig) => new WebhookTargetRule(config.webhooks.allowCidrs),
};
