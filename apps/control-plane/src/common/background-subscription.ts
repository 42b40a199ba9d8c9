import type { LoggerService } from '@nestjs/common';
import type { MessageBus } from '@gateway/events';

export interface BackgroundSubscription {
  close(): void;
}

/**
 * Subscribes without making the caller wait: RedisBus holds a SUBSCRIBE until Redis answers (up to
 * its command bound, then in the background), and a control plane must boot and serve with Redis
 * away. A subscription that completes after close() is removed at once.
 */
export function subscribeInBackground(bus: MessageBus, channel: string, listener: (message: unknown) => void, logger: Pick<LoggerService, 'warn'>): BackgroundSubscription {
  let closed = false;
  let unsubscribe: (() => void) | undefined;
  bus.subscribe<unknown>(channel, listener).then(
    (remove) => {
      if (closed) remove();
      else unsubscribe = remove;
    },
    (error: unknown) => logger.warn(`cannot subscribe to ${channel}: ${(error as Error).message}`),
  );
  return {
    close: () => {
      closed = true;
      unsubscribe?.();
    },
  };
}
