import { Module } from '@nestjs/common';
import { ThrottlerStorageService } from '@nestjs/throttler';
import { compileClientAddress } from '@gateway/client-address';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { FailoverThrottlerStorage } from './failover-throttler.storage';
import { RedisThrottlerStorage } from './redis-throttler.storage';
import { CLIENT_ADDRESS, THROTTLE_STORAGE, THROTTLING_CONFIG } from './throttling.tokens';

/**
 * Storage for decision 21's limits: Redis when REDIS_URL is set (shared by every control plane, keys
 * under REDIS_CHANNEL_PREFIX; counted in memory while Redis is away), in memory otherwise. The
 * guard itself is registered by AuthModule, ahead of the authentication guard, so that
 * unauthenticated requests are counted too.
 */
@Module({
  providers: [
    { provide: THROTTLING_CONFIG, inject: [CONTROL_PLANE_CONFIG], useFactory: (config: ControlPlaneConfig) => config.throttling },
    // Compiled once at boot (TRUSTED_PROXIES), by the data plane's rule for proxy.trustedProxies.
    { provide: CLIENT_ADDRESS, inject: [CONTROL_PLANE_CONFIG], useFactory: (config: ControlPlaneConfig) => compileClientAddress(config.trustedProxies) },
    {
      provide: THROTTLE_STORAGE,
      inject: [CONTROL_PLANE_CONFIG],
      useFactory: async (config: ControlPlaneConfig) => {
        if (config.redisUrl === undefined) return new ThrottlerStorageService();
        const redis = new RedisThrottlerStorage(config.redisUrl, config.channelPrefix, config.redisTlsCa);
        await redis.connect();
        return new FailoverThrottlerStorage(redis);
      },
    },
  ],
  exports: [THROTTLE_STORAGE, THROTTLING_CONFIG, CLIENT_ADDRESS],
})
export class ThrottlingModule {}
