/**
 * A 32-bit hash of a string for the hash ring: FNV-1a over the UTF-16 code units, then
 * MurmurHash3's finalizer (fmix32) so that keys differing in one character land far apart on the
 * ring. Not for security: the ring only needs an even spread and the same answer in every process.
 */
export function hashKey(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
