// Who a request came from, through trusted proxies: shared by the data plane's rate limits and the
// control plane's management API limits, so both read X-Forwarded-For by one rule.
export { compileAddressSet, compileClientAddress, compileTrustedProxyCheck, type ClientAddress, type ForwardedFor } from './client-address';
