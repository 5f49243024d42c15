import { MemoryError } from './memory.errors';

export interface EmbeddingsSettings {
  /** The gateway's OpenAI-compatible base URL (`.../llm/v1`). */
  gatewayUrl: string;
  apiKey: string | undefined;
  /** Unset: no embeddings (full-text search only). */
  model: string | undefined;
  dimensions: number | undefined;
  timeoutMs: number;
}

/** Inputs per embeddings call when many items are stored at once. */
const BATCH = 64;

export class EmbeddingsClient {
  constructor(private readonly settings: EmbeddingsSettings) {}

  get model(): string | undefined {
    return this.settings.model;
  }

  /** One vector per text, in order; MemoryError `upstream_timeout` or `upstream_error` when the gateway fails. */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += BATCH) {
      vectors.push(...(await this.embedBatch(texts.slice(start, start + BATCH), signal)));
    }
    return vectors;
  }

  private async embedBatch(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const { gatewayUrl, apiKey, model, dimensions, timeoutMs } = this.settings;
    if (!model) throw new MemoryError('upstream_error', 'no embedding model is configured');
    const timeout = AbortSignal.timeout(timeoutMs);
    let body: unknown;
    try {
      const res = await fetch(`${gatewayUrl}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({ model, input: texts, encoding_format: 'float', ...(dimensions ? { dimensions } : {}) }),
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
      if (!res.ok) {
        await res.body?.cancel();
        throw new MemoryError('upstream_error', `the model gateway answered ${res.status} to the embeddings call`);
      }
      body = await res.json();
    } catch (error) {
      if (error instanceof MemoryError) throw error;
      if (timeout.aborted) {
        throw new MemoryError(
          'upstream_timeout',
          `the model gateway did not answer the embeddings call in ${timeoutMs} ms`,
        );
      }
      throw new MemoryError('upstream_error', 'the model gateway could not be reached for the embeddings call');
    }
    return vectorsOf(body, texts.length);
  }
}

function vectorsOf(body: unknown, count: number): Float32Array[] {
  const data = (body as { data?: unknown } | null)?.data;
  const refuse = () => new MemoryError('upstream_error', 'the model gateway answered something that is not embeddings');
  if (!Array.isArray(data) || data.length !== count) throw refuse();
  const vectors = new Array<Float32Array>(count);
  for (const [position, item] of data.entries()) {
    const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    const at = typeof index === 'number' ? index : position;
    if (!Number.isInteger(at) || at < 0 || at >= count || vectors[at]) throw refuse();
    if (!Array.isArray(embedding) || embedding.length === 0) throw refuse();
    if (!embedding.every((value) => typeof value === 'number' && Number.isFinite(value))) throw refuse();
    vectors[at] = Float32Array.from(embedding as number[]);
  }
  if (new Set(vectors.map((vector) => vector.length)).size !== 1) throw refuse();
  return vectors;
}

/** A vector as the `embedding` column keeps it: little-endian float32. */
export function vectorToBytes(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i], i * 4);
  return bytes;
}

export function bytesToVector(bytes: Buffer): Float32Array {
  const length = Math.floor(bytes.length / 4);
  // Little-endian hosts (all we ship on) take the bytes as they are: a copy, not a parse per value.
  if (LITTLE_ENDIAN) return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + length * 4));
  const vector = new Float32Array(length);
  for (let i = 0; i < length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
