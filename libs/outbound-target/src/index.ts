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
export { outboundConnectOptions, OutboundTargetRefusedError, refusingLookup } from './refusing-lookup';
