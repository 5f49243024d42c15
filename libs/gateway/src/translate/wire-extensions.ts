import { type ChatCompletion } from '../wire';

// Fields the shared wire types do not declare.

/** vLLM, DeepSeek and other reasoning servers return the reasoning text beside the content. */
export type ChatCompletionMessage = ChatCompletion['choices'][number]['message'] & {
  reasoning_content?: string | null;
};

/** Some OpenAI-compatible servers report a failure mid-stream as a chunk carrying only this. */
export interface ChatStreamErrorChunk {
  error?: { message?: unknown; type?: unknown } | null;
}
