import type { ClaimedTurn } from '@fed/conversations';
import type { MarketplaceAgentEntity } from '../../agents/marketplace-agent.entity';
import { ModelError } from '../model/model-error';
import type { TaskReporter } from '../output/task-reporter';
import type { TurnOutput } from '../output/turn-output';
import type { DeliverableSink } from '../tools/agent-tool';
import type { ToolBox } from '../tools/tool-box';
import type { TurnPrompt } from '../prompt/turn-prompt';
import type { AgentLoop, LoopOutcome } from './agent-loop';
import type { SharedMemoryHook } from './shared-memory-hook';
import { workReport } from './work-report';

export interface AnswerSettings {
  /** The chat API's model name: what the agent calls itself. */
  agentName: string;
  /** Gateway model per `agentLevel`. */
  models: { default: string; high_performance: string };
}

/** The tools of one turn; `close` ends what opening them started (connections to tool servers). */
export interface TurnTools {
  open(turn: ClaimedTurn, signal: AbortSignal): Promise<{ toolbox: ToolBox; close(): Promise<void> }>;
}

/** Where a Marketplace turn's agent is read (its name, instructions and model configuration). */
export interface TurnAgents {
  find(agentId: string): Promise<MarketplaceAgentEntity | null>;
}

/** Answers a claimed turn: its prompt, the agent loop, then the work report. */
export class TurnAnswerer {
  constructor(
    private readonly prompt: Pick<TurnPrompt, 'build'>,
    private readonly loop: AgentLoop,
    private readonly tools: TurnTools,
    private readonly memory: SharedMemoryHook,
    private readonly settings: AnswerSettings,
    private readonly agents?: TurnAgents,
  ) {}

  async answer(
    turn: ClaimedTurn,
    output: TurnOutput,
    tasks: TaskReporter,
    deliverables: DeliverableSink,
    signal: AbortSignal,
  ): Promise<LoopOutcome> {
    const agent = turn.options.agentId === undefined ? undefined : await this.agentOf(turn.options.agentId);
    const messages = await this.prompt.build(
      turn,
      agent ? { name: agent.name, instructions: agent.instructions } : { name: this.settings.agentName },
      signal,
    );
    const model =
      agent?.modelConfig.model ?? this.settings.models[turn.options.agentLevel] ?? this.settings.models.default;
    const { toolbox, close } = await this.tools.open(turn, signal);
    let outcome: LoopOutcome;
    try {
      const parameters = agent && {
        ...(agent.modelConfig.temperature !== undefined ? { temperature: agent.modelConfig.temperature } : {}),
        ...(agent.modelConfig.maxOutputTokens !== undefined ? { maxTokens: agent.modelConfig.maxOutputTokens } : {}),
      };
      outcome = await this.loop.run({
        turn,
        model,
        ...(parameters ? { parameters } : {}),
        messages,
        output,
        tasks,
        toolbox,
        deliverables,
        signal,
      });
    } finally {
      await close();
    }
    const report = turn.options.reportMode === 'with' ? workReport(outcome) : undefined;
    if (report) {
      output.startParagraph();
      output.write(report);
    }
    if (outcome.kind !== 'interaction') await this.memory.afterTurn(turn, output.text);
    return outcome;
  }

  /** Read when the turn runs; disabled or removed since admission ends it `agent_unavailable`, not a generic answer. */
  private async agentOf(agentId: string): Promise<MarketplaceAgentEntity> {
    const agent = await this.agents?.find(agentId);
    if (!agent?.enabled) {
      throw new ModelError('agent_unavailable', 'The agent of this conversation is disabled or no longer exists.');
    }
    return agent;
  }
}
