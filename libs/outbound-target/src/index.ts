export {
  OUTBOUND_ALLOW_VARIABLE,
  OutboundAddressRule,
  parseCidrList,
  REFUSED_BY_DEFAULT,
  type Cidr,
  type CidrListParse,
  type OutboundRefusal,
  type RefusedRange,
} from './outbound-address-rule';
export { PRIVATE_RANGES, REFUSED_UNLESS_PUBLIC } from './private-ranges';
export { outboundConnectOptions, OutboundTargetRefusedError, refuseLiteralTarget, refusingLookup, type Resolver } from './refusing-lookup';
