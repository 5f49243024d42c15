import { BlobTooLargeError } from '@fed/storage';
import { imageSize } from 'image-size';
import { lookup } from 'mime-types';
import { Transform, type TransformCallback } from 'node:stream';

/** Enough of a file for any image header `image-size` reads (JPEG's size can follow long EXIF data). */
export const HEAD_BYTES = 512 * 1024;
const OCTET_STREAM = 'application/octet-stream';

// Raster formats whose header gives a size. SVG is left to the extension: it is text, and its
// "size" is a hint, not pixels.
const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  avif: 'image/avif',
  heif: 'image/heif',
  heic: 'image/heic',
  ico: 'image/vnd.microsoft.icon',
  jxl: 'image/jxl',
};

/** Counts an upload's bytes, keeps the first HEAD_BYTES, and fails the chunk crossing `maxBytes`. */
export class UploadMeter extends Transform {
  bytes = 0;
  exceeded = false;
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;

  constructor(private readonly maxBytes: number) {
    super({ highWaterMark: 1024 * 1024 });
  }

  get head(): Buffer {
    return Buffer.concat(this.headChunks, this.headLength);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      this.exceeded = true;
      return callback(new BlobTooLargeError(this.maxBytes));
    }
    if (this.headLength < HEAD_BYTES) {
      const taken = chunk.subarray(0, HEAD_BYTES - this.headLength);
      // A copy: the parser may reuse the chunk's memory.
      this.headChunks.push(Buffer.from(taken));
      this.headLength += taken.length;
    }
    callback(null, chunk);
  }
}

export interface FileFacts {
  mimeType: string;
  width: number | null;
  height: number | null;
}

/** Images by their header, else by the filename's extension (else octet-stream); the part's Content-Type is ignored. */
export function describeFile(head: Buffer, filename: string): FileFacts {
  const image = imageFacts(head);
  if (image) return image;
  const byExtension = lookup(filename);
  return { mimeType: byExtension || OCTET_STREAM, width: null, height: null };
}

function imageFacts(head: Buffer): FileFacts | null {
  if (head.length === 0) return null;
  try {
    const size = imageSize(head);
    const mimeType = size.type ? IMAGE_TYPES[size.type] : undefined;
    if (!mimeType || !isPixels(size.width) || !isPixels(size.height)) return null;
    // EXIF orientations 5-8 turn the picture a quarter: what a viewer shows is height x width.
    const turned = size.orientation !== undefined && size.orientation >= 5 && size.orientation <= 8;
    return turned
      ? { mimeType, width: size.height, height: size.width }
      : { mimeType, width: size.width, height: size.height };
  } catch {
    // Not an image, or a header cut off by HEAD_BYTES: a file without a size.
    return null;
  }
}

function isPixels(value: number): boolean {
  return Number.isInteger(value) && value > 0 && value <= 2_147_483_647;
}
