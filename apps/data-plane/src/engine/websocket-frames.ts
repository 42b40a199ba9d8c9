/**
 * The little of RFC 6455 framing a byte-relaying proxy needs: where frames end (so a close frame
 * the gateway adds never lands inside one of the peers' frames) and the close frame itself.
 */

/** RFC 6455 7.4.1: "an endpoint is going away, such as a server going down". */
export const GOING_AWAY = 1001;

/**
 * A close frame with a status code and no reason. The client-bound one is unmasked (a server's);
 * the upstream-bound one is masked, as every frame a client sends must be (RFC 6455 5.3).
 */
export function closeFrame(code: number, masked: boolean): Buffer {
  if (!masked) return Buffer.from([0x88, 0x02, code >> 8, code & 0xff]);
  const key = [Math.floor(Math.random() * 256), Math.floor(Math.random() * 256), Math.floor(Math.random() * 256), Math.floor(Math.random() * 256)];
  return Buffer.from([0x88, 0x82, ...key, (code >> 8) ^ (key[0] as number), (code & 0xff) ^ (key[1] as number)]);
}

/**
 * Follows the frame boundaries of one direction of a WebSocket byte stream without copying or
 * decoding payloads: per chunk it only reads frame headers and counts payload bytes down.
 */
export class FrameBoundary {
  /** Header bytes of the frame being read (at most 14). */
  private readonly header = Buffer.alloc(14);
  private headerRead = 0;
  /** Header length once its second byte is known (2 until then). */
  private headerLength = 2;
  private payloadLeft = 0;

  /** True between two frames: a frame of our own may be sent now. */
  get atBoundary(): boolean {
    return this.headerRead === 0 && this.payloadLeft === 0;
  }

  /**
   * Accounts for `chunk`; returns how many of its bytes were taken. With `stopAtBoundary`, stops at
   * the first frame boundary (0 when already at one), so the caller forwards only the rest of the
   * frame under way.
   */
  advance(chunk: Buffer, stopAtBoundary = false): number {
    let i = 0;
    while (i < chunk.length) {
      if (stopAtBoundary && this.atBoundary) return i;
      if (this.payloadLeft > 0) {
        const n = Math.min(this.payloadLeft, chunk.length - i);
        this.payloadLeft -= n;
        i += n;
        continue;
      }
      this.header[this.headerRead] = chunk[i] as number;
      this.headerRead += 1;
      i += 1;
      if (this.headerRead === 2) {
        const len7 = (this.header[1] as number) & 0x7f;
        this.headerLength = 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + ((this.header[1] as number) & 0x80 ? 4 : 0);
      }
      if (this.headerRead >= 2 && this.headerRead === this.headerLength) this.payloadLeft = this.payloadLength();
    }
    return i;
  }

  private payloadLength(): number {
    const len7 = (this.header[1] as number) & 0x7f;
    const length = len7 === 126 ? this.header.readUInt16BE(2) : len7 === 127 ? this.header.readUInt32BE(2) * 2 ** 32 + this.header.readUInt32BE(6) : len7;
    this.headerRead = 0;
    this.headerLength = 2;
    return length;
  }
}
