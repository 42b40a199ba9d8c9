import { SignedBus } from '@gateway/events';
import { RedisBus } from '@gateway/events/redis-bus';

const quiet = { warn: () => undefined, info: () => undefined };

/**
 * A bus as the planes build theirs (a SignedBus over a RedisBus, with `clusterToken`): what it
 * publishes a control plane or data plane of that cluster accepts, and it hears what they sign.
 */
export function signedRedisBus(redisUrl: string, channelPrefix: string, clusterToken: string, connectionName?: string): SignedBus {
  return new SignedBus(new RedisBus(redisUrl, { channelPrefix, logger: quiet, ...(connectionName === undefined ? {} : { connectionName }) }), { clusterToken, logger: quiet });
}
