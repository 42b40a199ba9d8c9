import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorageService, type ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';

/** A store that can also be shut down (Redis closes its connection, memory its sweep timer). */
export type ClosableThrottlerStorage = ThrottlerStorage & OnApplicationShutdown;

/**
 * Counts in the shared store (Redis) and, while it fails, in this process's memory: an outage of
 * Redis must not lift the limits (the 5-per-15-minutes login tier above all). During the outage
 * each control plane counts on its own, so N instances allow up to N times a tier's limit; that
 * is the price of not refusing every management call. Each switch is logged once, not per request.
 */
export class FailoverThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('Throttling');
  private readonly local = new ThrottlerStorageService();
  private usingLocal = false;

  constructor(private readonly shared: ClosableThrottlerStorage) {}

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    try {
      const record = await this.shared.increment(key, ttl, limit, blockDuration, throttlerName);
      if (this.usingLocal) {
        this.usingLocal = false;
        this.logger.log('rate limit store is back: API limits are counted in Redis again');
      }
      return record;
    } catch (error) {
      if (!this.usingLocal) {
        this.usingLocal = true;
        this.logger.warn(`rate limit store unavailable, API limits counted in this process's memory until it is back: ${error instanceof Error ? error.message : String(error)}`);
      }
      return this.local.increment(key, ttl, limit, blockDuration, throttlerName);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.local.onApplicationShutdown();
    await this.shared.onApplicationShutdown();
  }
}
