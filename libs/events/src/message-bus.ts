/** Publish/subscribe transport shared by the planes: in-process by default, Redis when configured. */
export interface MessageBus {
  publish<T>(channel: string, message: T): Promise<void>;
  /** Returns a function that removes the subscription. */
  subscribe<T>(channel: string, listener: (message: T) => void): Promise<() => void>;
  close(): Promise<void>;
}
