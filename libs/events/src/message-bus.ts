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
  close(): Promise<void>;
}
