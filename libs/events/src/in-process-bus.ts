import { EventEmitter } from 'node:events';
import type { MessageBus } from './message-bus';

/**
 * The one-process bus. Delivery is asynchronous (next tick) so publishers behave the same as
 * with a network bus and a slow listener never runs inside the publisher's call stack.
 */
export class InProcessBus implements MessageBus {
  private readonly emitter = new EventEmitter({ captureRejections: false });

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  async publish<T>(channel: string, message: T): Promise<void> {
    setImmediate(() => this.emitter.emit(channel, message));
  }

  async subscribe<T>(channel: string, listener: (message: T) => void): Promise<() => void> {
    const wrapped = (message: T): void => listener(message);
    this.emitter.on(channel, wrapped);
    return () => this.emitter.off(channel, wrapped);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}
