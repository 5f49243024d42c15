import type { Step } from '../stream/turn-view';
import type { ToolCallData } from './sandbox-bridge';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What the answer's step for a tool call shows of it, for its view: the stream carries the step's words (its
 * title, description, content), not the tool's raw arguments or result, so that is what the view receives;
 * `metadata.arguments` is passed on if a step ever carries it.
 */
export function toolCallData(steps: readonly Step[], callId: string): ToolCallData {
  const step = steps.find((s) => s.first.callId === callId);
  if (!step) return { arguments: {}, resultText: '', failed: false };
  const { first, latest } = step;
  const args = first.metadata?.arguments;
  return {
    arguments: isRecord(args) ? args : {},
    resultText: latest.content ?? latest.description ?? latest.title ?? '',
    failed: latest.status === 'failed' || latest.status === 'error',
  };
}
