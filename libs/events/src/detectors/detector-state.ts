/** Small helpers for detectors' JSON state (what is persisted between evaluations and restarts). */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Appends `value` and keeps the last `limit` entries. */
export function pushBounded<T>(list: T[], value: T, limit: number): void {
  list.push(value);
  if (list.length > limit) list.splice(0, list.length - limit);
}

/** Whether `value` is an array of finite numbers (a persisted series). */
export function isNumberArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'number' && Number.isFinite(entry));
}

/** A persisted per-key record of `check`ed entries, or undefined when any entry is not one. */
export function restoreRecord<T>(value: unknown, check: (entry: unknown) => entry is T): Record<string, T> | undefined {
  if (!isRecord(value)) return undefined;
  for (const entry of Object.values(value)) if (!check(entry)) return undefined;
  return value as Record<string, T>;
}

/** How many recent values a detector keeps for the trend. */
export const TREND_POINTS = 4;
