import type { Step } from '../stream/turn-view';
import type { ToolCallData } from './sandbox-bridge';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What a view is given of its tool call: the task of a call that returned an MCP App carries the call's arguments
 * (`metadata.toolInput`) and result (`metadata.toolResult`); without them (too large to keep), the step's words.
 */
export function toolCallData(steps: readonly Step[], callId: string): ToolCallData {
  const step = steps.find((s) => s.first.callId === callId);
  if (!step) return { arguments: {}, result: { content: [] }, failed: false };
  const { latest } = step;
  const input = latest.metadata?.toolInput;
  const result = latest.metadata?.toolResult;
  const words = latest.content ?? latest.description ?? latest.title ?? '';
  return {
    arguments: isRecord(input) ? input : {},
    result:
      isRecord(result) && Array.isArray(result.content)
        ? {
            content: result.content,
            ...('structuredContent' in result ? { structuredContent: result.structuredContent } : {}),
          }
        : { content: [{ type: 'text', text: words }] },
    failed: latest.status === 'failed' || latest.status === 'error',
  };
}
