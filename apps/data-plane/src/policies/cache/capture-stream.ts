import { Transform, type TransformCallback } from 'node:stream';

/** Collects the body as it streams to the client; hands it over once the upstream response completed. */
export class CaptureStream extends Transform {
  private chunks: Buffer[] | undefined = [];
  private size = 0;

  constructor(
    private readonly limit: number,
    private readonly onDone: (body: Buffer | undefined) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.chunks !== undefined) {
      this.size += chunk.length;
      if (this.size > this.limit) this.chunks = undefined;
      else this.chunks.push(chunk);
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.onDone(this.chunks === undefined ? undefined : Buffer.concat(this.chunks, this.size));
    callback();
  }
}
