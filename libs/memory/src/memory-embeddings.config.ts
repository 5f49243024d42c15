import { EmbeddingsClient } from './embeddings-client';

/** The `memory` section of an app's configuration (MEMORY_* variables). */
export interface MemoryEmbeddingsConfig {
  gatewayUrl: string;
  gatewayApiKey?: string;
  embeddingModel?: string;
  embeddingDimensions?: number;
  embeddingTimeoutMs: number;
}

/** The embeddings client of an app's MEMORY_* configuration; `fallbackApiKey`: the agent's key. */
export function memoryEmbeddings(config: MemoryEmbeddingsConfig, fallbackApiKey?: string): EmbeddingsClient {
  return new EmbeddingsClient({
    gatewayUrl: config.gatewayUrl,
    apiKey: config.gatewayApiKey ?? fallbackApiKey,
    model: config.embeddingModel,
    dimensions: config.embeddingDimensions,
    timeoutMs: config.embeddingTimeoutMs,
  });
}
