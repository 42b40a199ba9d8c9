import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented bearer token with CLUSTER_TOKEN in constant time: both are hashed first so
 * the comparison runs on equal-length digests whatever the presented length.
 */
export function clusterTokenMatches(expected: string, authorization: string | undefined): boolean {
  const match = /^Bearer ([^\s]+)$/.exec(authorization ?? '');
  const presented = match?.[1] ?? '';
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && presented.length > 0;
}
