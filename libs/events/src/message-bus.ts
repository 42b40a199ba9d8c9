/** Publish/subscribe transport shared by the planes: in-process by default, Redis when configured. */
export interface MessageBus {
  publish<T>(channel: string, message: T): Promise<void>;
  /** Returns a function that removes the subscription. */
  subscribe<T>(channel: string, listener: (message: T) => void): Promise<() => void>;
  /**
   * Called after the transport reconnected: messages published meanwhile were lost, so a
   * subscriber resynchronises (fetches a snapshot). Returns a function that removes the listener.
   * Absent on buses that cannot lose messages (in-process).
   */
  onReconnect?(listener: () => void): () => void;
  close(): Promise<void>;
}
