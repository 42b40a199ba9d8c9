import type { Provider } from '@nestjs/common';
import { OutboundAddressRule, REFUSED_UNLESS_PUBLIC } from '@gateway/outbound-target';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';

/**
 * The outbound-target rule as webhooks apply it: receivers are on the internet, so loopback and
 * private ranges are refused too (REFUSED_UNLESS_PUBLIC), with the same OUTBOUND_ALLOW_CIDRS
 * exceptions as route tests. A token of its own: OutboundAddressRule itself is the default rule.
 */
export const WEBHOOK_TARGET_RULE = Symbol('WEBHOOK_TARGET_RULE');

export const WebhookTargetRuleProvider: Provider = {
  provide: WEBHOOK_TARGET_RULE,
  inject: [CONTROL_PLANE_CONFIG],
  useFactory: (config: ControlPlaneConfig) => new OutboundAddressRule(config.outboundAllowCidrs, REFUSED_UNLESS_PUBLIC),
};
