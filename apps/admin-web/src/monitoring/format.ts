/** Numbers as the monitoring views show them: a few significant digits, units spelled out. */
export const formatRate = (n: number): string => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
export const formatPercent = (n: number): string => `${n >= 10 ? n.toFixed(1) : n.toFixed(2)} %`;
export const formatMs = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n >= 10 ? n.toFixed(0) : n.toFixed(1)} ms`);

/** "4 s ago" from an instant and now (both epoch ms). */
export function formatAge(thenMs: number, nowMs: number): string {
  const seconds = Math.max(0, Math.round((nowMs - thenMs) / 1000));
  if (seconds < 90) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  return minutes < 90 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
}
