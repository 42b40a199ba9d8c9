import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeFrame, FrameBoundary, GOING_AWAY } from './websocket-frames';

/** A frame as a peer would send it: FIN + opcode, the length in its 7/16/64-bit form, an optional mask. */
function frame(payloadLength: number, masked: boolean): Buffer {
  const lengthBytes = payloadLength < 126 ? [payloadLength] : payloadLength < 65536 ? [126, payloadLength >> 8, payloadLength & 0xff] : [127, 0, 0, 0, 0, ...[24, 16, 8, 0].map((s) => (payloadLength >>> s) & 0xff)];
  lengthBytes[0] = (lengthBytes[0] as number) | (masked ? 0x80 : 0);
  return Buffer.concat([Buffer.from([0x82, ...lengthBytes]), masked ? Buffer.from([1, 2, 3, 4]) : Buffer.alloc(0), Buffer.alloc(payloadLength, 0x61)]);
}

describe('FrameBoundary', () => {
  for (const [name, length, masked] of [
    ['empty', 0, false],
    ['7-bit length', 100, true],
    ['16-bit length', 1000, false],
    ['64-bit length', 70_000, true],
  ] as const) {
    it(`follows a ${name} frame cut into pieces of every size`, () => {
      const bytes = Buffer.concat([frame(length, masked), frame(3, masked)]);
      const firstEnd = frame(length, masked).length;
      for (const piece of [1, 2, 7, 13, 4096]) {
        const boundary = new FrameBoundary();
        const boundaries: number[] = [];
        for (let at = 0; at < bytes.length; at += piece) {
          const chunk = bytes.subarray(at, Math.min(at + piece, bytes.length));
          // Byte by byte inside the chunk, to see every position where a frame of ours could go.
          for (let i = 0; i < chunk.length; i += 1) {
            boundary.advance(chunk.subarray(i, i + 1));
            if (boundary.atBoundary) boundaries.push(at + i + 1);
          }
        }
        assert.deepEqual(boundaries, [firstEnd, bytes.length], `piece ${piece}`);
      }
    });
  }

  it('with stopAtBoundary takes only the rest of the frame under way', () => {
    const boundary = new FrameBoundary();
    const bytes = Buffer.concat([frame(10, false), frame(5, false)]);
    assert.equal(boundary.advance(bytes.subarray(0, 4)), 4);
    assert.equal(boundary.advance(bytes.subarray(4), true), 8);
    assert.equal(boundary.atBoundary, true);
    assert.equal(boundary.advance(bytes.subarray(12), true), 0);
  });
});

describe('closeFrame', () => {
  it('writes a server close frame unmasked and a client one masked, both carrying the code', () => {
    assert.deepEqual([...closeFrame(GOING_AWAY, false)], [0x88, 0x02, 0x03, 0xe9]);
    const masked = closeFrame(GOING_AWAY, true);
    assert.equal(masked.length, 8);
    assert.equal(masked[1], 0x82);
    const key = masked.subarray(2, 6);
    assert.equal(((masked[6] as number) ^ (key[0] as number)) * 256 + ((masked[7] as number) ^ (key[1] as number)), 1001);
  });
});
