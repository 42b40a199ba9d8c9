import type { OnReadOpts } from 'node:net';

/**
 * The one buffer every plain (non-TLS) upstream connection reads into (node's `onread`), in place
 * of the Buffer node allocates for each read: a 64 KiB backing store malloc'd, trimmed and wrapped
 * in an ArrayBuffer per read, then left to the GC. node's HTTP server reads its requests into one
 * shared buffer the same way. One buffer is enough: reads are delivered one at a time from the event
 * loop's poll phase, never inside another read's callback (a plain socket's write does not read).
 *
 * What it costs: a slice of a read is valid only until the read's callback returns. The parser and
 * every `UpstreamResponseHandler` copy what they keep (`copyOf`).
 */
const SHARED = Buffer.allocUnsafeSlow(64 * 1024);

/**
 * `onread` options for a plain upstream socket: every read lands in the shared buffer and `onRead`
 * gets the bytes read (a borrowed slice); its false pauses the socket, as a full stream would.
 */
export function sharedReadOptions(onRead: (data: Buffer) => boolean): OnReadOpts {
  return { buffer: SHARED, callback: (bytes: number) => onRead(SHARED.subarray(0, bytes)) };
}

/**
 * A copy of a borrowed slice, to keep past the read's callback. Below 4 KiB `allocUnsafe` carves it
 * from node's pool (no allocation of its own); no zero-filling, as the copy overwrites every byte.
 */
export function copyOf(slice: Buffer): Buffer {
  const copy = Buffer.allocUnsafe(slice.length);
  slice.copy(copy, 0, 0, slice.length);
  return copy;
}
