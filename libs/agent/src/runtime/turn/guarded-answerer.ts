import { type GuardrailAlertWriter, type GuardrailEngine, type GuardrailStage } from '@fed/audit';
import type { ClaimedTurn } from '@fed/conversations';
import type { TaskReporter } from '../output/task-reporter';
import type { TurnOutput } from '../output/turn-output';
import type { DeliverableSink } from '../tools/agent-tool';
import type { LoopOutcome } from './agent-loop';
import type { TurnAnswerer } from './turn-answerer';

/** Error chunk code of a turn whose message a `block` rule refused (docs/chat.md, "Stream entries"). */
export const CONTENT_BLOCKED = 'content_blocked';

/** The user's message matched a `block` rule: the turn ends without a model call. */
export class ContentBlockedError extends Error {
  readonly code = CONTENT_BLOCKED;

  constructor() {
    // The rule is not named to the user: its terms may be what the operator keeps confidential.
    super('The message was blocked by the content filter and was not sent to the model.');
    this.name = 'ContentBlockedError';
  }
}

/**
 * The content filter (docs/admin.md, "Guardrail alerts"): the user's message is checked before the model sees it
 * (`block` ends the turn, `redact` masks matches, history included), the final answer after (alerts only).
 */
export class GuardedAnswerer {
  constructor(
    private readonly answerer: Pick<TurnAnswerer, 'answer'>,
    private readonly engine: GuardrailEngine,
    private readonly alerts: Pick<GuardrailAlertWriter, 'record'>,
    private readonly service: string,
  ) {}

  async answer(
    turn: ClaimedTurn,
    output: TurnOutput,
    tasks: TaskReporter,
    deliverables: DeliverableSink,
    signal: AbortSignal,
  ): Promise<LoopOutcome> {
    const checked = this.checkInput(turn);
    const outcome = await this.answerer.answer(checked, output, tasks, deliverables, signal);
    if (this.engine.appliesTo('output')) {
      // The whole answer: what the Markdown stripper still holds is shown now (the end would show it anyway).
      output.release();
      this.check(turn, 'output', turn.runId, output.text);
    }
    return outcome;
  }

  private checkInput(turn: ClaimedTurn): ClaimedTurn {
    if (!this.engine.appliesTo('input')) return turn;
    const verdict = this.check(turn, 'input', turn.userMessage.messageId, turn.userMessage.text);
    if (verdict.blockedBy) throw new ContentBlockedError();
    const redact = (text: string) => this.engine.redact('input', text);
    return {
      ...turn,
      userMessage: { ...turn.userMessage, text: redact(turn.userMessage.text) },
      // Earlier messages reach the model again with each turn: masked the same way.
      history: turn.history.map((message) =>
        message.sender === 'AI' ? message : { ...message, text: redact(message.text) },
      ),
    };
  }

  private check(turn: ClaimedTurn, stage: GuardrailStage, messageId: string, text: string) {
    const verdict = this.engine.check(stage, text);
    if (verdict.findings.length > 0) {
      this.alerts.record(verdict.findings, {
        service: this.service,
        stage,
        conversationId: turn.conversationId,
        messageId,
        userId: turn.userId,
        tenantId: turn.tenantId,
        withoutContents: turn.options.privateMode,
      });
    }
    return verdict;
  }
}
