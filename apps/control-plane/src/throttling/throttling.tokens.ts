/** The ThrottlerStorage in use (in memory, or Redis when REDIS_URL is set). */
export const THROTTLE_STORAGE = Symbol('THROTTLE_STORAGE');
/** The tiers' limits (config.throttling). */
export const THROTTLING_CONFIG = Symbol('THROTTLING_CONFIG');
/** The client address the limits count by (ClientAddress, through config.trustedProxies). */
export const CLIENT_ADDRESS = Symbol('CLIENT_ADDRESS');
