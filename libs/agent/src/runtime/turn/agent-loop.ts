import type { ClaimedTurn, PendingInteraction } from '@fed/conversations';
import type { Interaction, TaskFile } from '@fed/contracts';
import type { LlmLogWriter } from '@fed/audit';
import { type Logger, inSpan } from '@fed/observability';
import type { ChatMessage, ModelReply, ModelRequest, ToolCall } from '../model/chat-wire';
import type { ModelClient } from '../model/model-client';
import { stripMarkdown } from '../output/markdown-stripper';
import { storableText } from '../output/storable-stream';
import type { TaskReporter } from '../output/task-reporter';
import type { TurnOutput } from '../output/turn-output';
import { type PreparedUi, historyUiResource, prepareUi, viewData } from '../output/ui-resources';
import {
  type DeliverableSink,
  type ToolLabel,
  type ToolOutcome,
  type ToolUiResource,
  quoted,
} from '../tools/agent-tool';
import type { ToolBox } from '../tools/tool-box';

/** One tool call as the work report tells it. */
export interface ToolRun {
  toolName: string;
  label: ToolLabel;
  status: 'completed' | 'failed' | 'pending';
}

export type LoopOutcome =
  /** The model answered without asking for tools. */
  | { kind: 'completed'; steps: number; toolRuns: ToolRun[] }
  /** `maxSteps` model calls were made and the last still asked for tools. */
  | { kind: 'step_limit'; steps: number; toolRuns: ToolRun[] }
  /** `ask_user`: the turn waits for the user. */
  | { kind: 'interaction'; steps: number; toolRuns: ToolRun[]; pendingInteraction: PendingInteraction };

export interface LoopInput {
  turn: ClaimedTurn;
  /** The gateway model of the turn's agent level, or of its Marketplace agent. */
  model: string;
  /** A Marketplace agent's sampling settings. */
  parameters?: { temperature?: number; maxTokens?: number };
  messages: ChatMessage[];
  output: TurnOutput;
  tasks: TaskReporter;
  /** The turn's tools: built in, and those of the approved external tool servers. */
  toolbox: ToolBox;
  deliverables: DeliverableSink;
  signal: AbortSignal;
}

/** Model calls, feeding tool results back until a text answer, `ask_user` or `maxSteps` (the last must answer). */
export class AgentLoop {
  constructor(
    private readonly model: ModelClient,
    private readonly maxSteps: number,
    private readonly logger: Logger,
    /** The LLM log: a row per model call (docs/admin.md, "LLM log"). */
    private readonly llmLog?: Pick<LlmLogWriter, 'record'>,
  ) {}

  async run(input: LoopInput): Promise<LoopOutcome> {
    const { turn, output, signal } = input;
    const write = (piece: string) => output.write(piece);
    const request = {
      model: input.model,
      ...input.parameters,
      privateMode: turn.options.privateMode,
      sessionId: turn.conversationId,
      tenantId: turn.tenantId,
    };
    if (!turn.options.agentMode) {
      await this.call(input, 'direct_answer', 1, { ...request, messages: input.messages }, write);
      return { kind: 'completed', steps: 1, toolRuns: [] };
    }

    const messages = [...input.messages];
    const tools = input.toolbox.definitions();
    const toolRuns: ToolRun[] = [];
    for (let step = 1; ; step++) {
      const last = step >= this.maxSteps;
      output.startParagraph();
      const reply = await this.call(
        input,
        'agent_step',
        step,
        { ...request, messages, tools, ...(last ? { toolChoice: 'none' as const } : {}) },
        write,
      );
      output.release();
      if (reply.toolCalls.length === 0) return { kind: 'completed', steps: step, toolRuns };
      if (last) return { kind: 'step_limit', steps: step, toolRuns };

      messages.push({ role: 'assistant', content: reply.text || null, tool_calls: reply.toolCalls });
      for (const call of reply.toolCalls) {
        signal.throwIfAborted();
        const result = await this.runCall(call, input, toolRuns);
        if ('interaction' in result) {
          return {
            kind: 'interaction',
            steps: step,
            toolRuns,
            pendingInteraction: {
              callId: call.id,
              toolName: call.function.name,
              arguments: call.function.arguments,
              assistantText: storableText(reply.text),
            },
          };
        }
        messages.push({ role: 'tool', tool_call_id: call.id, content: result.content });
      }
    }
  }

  /** One model call, and its row in the LLM log (a failed or cancelled call too: `success` false). */
  private async call(
    input: LoopInput,
    operation: 'agent_step' | 'direct_answer',
    step: number,
    request: ModelRequest,
    write: (piece: string) => void,
  ): Promise<ModelReply> {
    const { turn, signal } = input;
    const startedAt = new Date();
    let reply: ModelReply | undefined;
    let failure: string | undefined;
    try {
      // A span per model call (its HTTP call to the gateway is a child: the gateway continues the trace).
      reply = await inSpan(
        `chat ${input.model}`,
        {
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': input.model,
            'fed.conversation_id': turn.conversationId,
            'fed.run_id': turn.runId,
            'fed.step': step,
          },
        },
        async (span) => {
          const answer = await this.model.stream(request, write, signal);
          span.setAttribute('fed.tool_calls', answer.toolCalls.length);
          return answer;
        },
      );
      return reply;
    } catch (error) {
      failure = signal.aborted ? 'cancelled' : ((error as { code?: string }).code ?? 'internal_error');
      throw error;
    } finally {
      const contents = !turn.options.privateMode;
      this.llmLog?.record({
        startedAt,
        durationMs: Date.now() - startedAt.getTime(),
        service: 'agent-runtime',
        operation,
        success: reply !== undefined,
        conversationId: turn.conversationId,
        tenantId: turn.tenantId,
        toolsUsed: reply ? reply.toolCalls.length : null,
        agentType: turn.options.agentMode ? 'agent' : 'direct',
        agentLevel: turn.options.agentLevel,
        currentMessage: contents ? turn.userMessage.text : null,
        finalContent: contents && reply ? reply.text : null,
        metadata: {
          model: input.model,
          runId: turn.runId,
          messageId: turn.userMessage.messageId,
          step,
          ...(failure ? { error: failure } : {}),
        },
      });
    }
  }

  private async runCall(
    call: ToolCall,
    input: LoopInput,
    toolRuns: ToolRun[],
  ): Promise<{ content: string } | { interaction: Interaction }> {
    const { turn, tasks, signal } = input;
    const toolName = storableText(call.function.name);
    const prepared = input.toolbox.prepare(call);
    const startLabel = prepared.ok
      ? prepared.tool.describe(prepared.args)
      : { title: 'Using a tool', description: quoted(toolName, 64) };
    const metadata = { toolName };
    await tasks.show({
      callId: call.id,
      actionType: 'tool_start',
      status: 'in_progress',
      metadata,
      ...clean(startLabel),
    });

    let outcome: ToolOutcome;
    if (!prepared.ok) {
      outcome = { status: 'failed', error: prepared.error, label: prepared.label };
    } else {
      try {
        const tool = prepared.tool;
        // A span per tool call: its name and id, never its arguments or result.
        outcome = await inSpan(
          `execute_tool ${toolName.slice(0, 100)}`,
          {
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': toolName.slice(0, 100),
              'gen_ai.tool.call.id': call.id.slice(0, 100),
              'fed.run_id': turn.runId,
            },
          },
          async (span) => {
            const ran = await tool.run(prepared.args, {
              tenantId: turn.tenantId,
              userId: turn.userId,
              conversationId: turn.conversationId,
              messageId: turn.runId,
              privateMode: turn.options.privateMode,
              signal,
              callId: call.id,
              deliverables: input.deliverables,
            });
            span.setAttribute('fed.tool.status', ran.status);
            return ran;
          },
        );
      } catch (error) {
        if (signal.aborted) throw error;
        this.logger.error({ err: error, runId: turn.runId, tool: toolName }, 'agent tool failed');
        outcome = {
          status: 'failed',
          error: 'The tool failed unexpectedly.',
          label: { title: `${startLabel.title} failed`, description: 'An unexpected error' },
        };
      }
    }
    signal.throwIfAborted();

    const label = clean(outcome.label);
    const result = { callId: call.id, actionType: 'tool_result', ...label };
    if (outcome.status === 'interaction') {
      const interaction = await this.shownInteraction(outcome, call.id, toolName, input);
      toolRuns.push({ toolName, label, status: 'pending' });
      await tasks.show(
        {
          ...result,
          status: 'pending',
          content: interaction.content,
          metadata: {
            ...metadata,
            interaction_type: interaction.interactionType,
            ...(interaction.options ? { options: interaction.options } : {}),
            ...(interaction.uiResource ? { uiResource: historyUiResource(interaction.uiResource) } : {}),
          },
        },
        interaction,
      );
      return { interaction };
    }
    toolRuns.push({ toolName, label, status: outcome.status });
    const ui =
      outcome.status === 'completed' && outcome.uiResource
        ? await this.storedUi(outcome.uiResource, call.id, toolName, input)
        : undefined;
    const resultMetadata = ui?.servable
      ? {
          ...metadata,
          uiResource: historyUiResource(ui.resource),
          // An MCP App's view is given the call's arguments and result (document 2 leaves `metadata` open).
          ...(ui.resource.type === 'html' && prepared.ok && outcome.status === 'completed'
            ? viewData(prepared.args, outcome.uiResource?.viewResult)
            : {}),
        }
      : metadata;
    await tasks.show({ ...result, status: outcome.status, metadata: resultMetadata, ...filesOf(outcome) });
    if (ui?.servable) input.output.uiResource(ui.resource.altText, ui.resource);
    else if (ui) input.output.uiResource(ui.altText);
    return { content: outcome.status === 'completed' ? outcome.content : JSON.stringify({ error: outcome.error }) };
  }

  /** The interaction as shown: a first-party UI resource replaces `options`, which stay as its fallback. */
  private async shownInteraction(
    outcome: Extract<ToolOutcome, { status: 'interaction' }>,
    callId: string,
    toolName: string,
    input: LoopInput,
  ): Promise<Interaction> {
    const { uiResource, options, ...interaction } = outcome.interaction;
    const content = storableText(interaction.content);
    const shown: Interaction = {
      ...interaction,
      content: input.turn.options.outputFormat === 'plain' ? stripMarkdown(content) : content,
    };
    if (uiResource?.origin === 'first-party') {
      const ui = await this.storedUi({ resource: uiResource, html: outcome.html }, callId, toolName, input);
      if (ui.servable) return { ...shown, uiResource: ui.resource };
    }
    return options ? { ...shown, options: options.map(storableText) } : shown;
  }

  /** Stores a tool's UI resource with the turn; an HTML resource that could not be stored is not shown. */
  private async storedUi(ui: ToolUiResource, callId: string, toolName: string, input: LoopInput): Promise<PreparedUi> {
    const prepared = prepareUi(ui, { id: callId, toolName }, input.turn.options.outputFormat);
    if (!prepared.servable || !prepared.record) return prepared;
    let stored = false;
    try {
      stored = await input.tasks.saveUiResource(prepared.record);
    } catch (error) {
      this.logger.error({ err: error, runId: input.turn.runId, tool: toolName }, 'UI resource not stored');
    }
    if (stored || prepared.resource.type === 'data') return prepared;
    return { servable: false, altText: prepared.resource.altText };
  }
}

/** The result task's `files[]`: what a completed tool produced (`write_file`). */
function filesOf(outcome: ToolOutcome): { files?: TaskFile[] } {
  return outcome.status === 'completed' && outcome.files && outcome.files.length > 0 ? { files: outcome.files } : {};
}

function clean(label: ToolLabel): ToolLabel {
  return label.description === undefined
    ? { title: storableText(label.title) }
    : { title: storableText(label.title), description: storableText(label.description) };
}
