import type { BusDropReason } from './bus-drop-counter';

/** Publish/subscribe transport shared by the planes: in-process by default, Redis when configured. */
export interface MessageBus {
  publish<T>(channel: string, message: T): Promise<void>;
  /** Returns a function that removes the subscription. */
  subscribe<T>(channel: string, listener: (message: T) => void): Promise<() => void>;
  /**
   * Called after the transport reconnected: messages published while it was away are lost, so a
   * subscriber that keeps state resynchronizes. Buses that cannot disconnect omit it.
   * Returns a function that removes the listener.
   */
  onReconnect?(listener: () => void): () => void;
  /** True when the transport's server answers (readiness); buses without a server omit it. */
  ping?(): Promise<boolean>;
  /** Messages dropped before any listener saw them, by reason; buses that authenticate messages (SignedBus) have it. */
  dropCounts?(): Readonly<Record<BusDropReason, number>>;
  close(): Promise<void>;
}
