import type { ClaimedTurn } from '@fed/conversations';
import type { AttachmentReader } from '../attachments/attachment-reader';
import type { ChatMessage } from '../model/chat-wire';
import type { CatalogService } from '../../catalog/catalog.service';
import { buildPrompt } from './prompt-builder';

/** What a turn's prompt is read from: the catalog's instructions and the user message's files. */
export class TurnPrompt {
  constructor(
    private readonly catalog: Pick<CatalogService, 'instructionsFor'>,
    private readonly attachments: Pick<AttachmentReader, 'read'>,
  ) {}

  /** `agent`: who the model is (chat model name or Marketplace agent); files reach the model in every mode. */
  async build(
    turn: ClaimedTurn,
    agent: { name: string; instructions?: string },
    signal: AbortSignal,
  ): Promise<ChatMessage[]> {
    const [catalog, attachments] = await Promise.all([
      this.catalog.instructionsFor(turn.options),
      this.attachments.read(turn.userMessage.files, signal),
    ]);
    return buildPrompt({
      turn,
      catalog,
      agentName: agent.name,
      ...(agent.instructions ? { agentInstructions: agent.instructions } : {}),
      withTools: turn.options.agentMode,
      now: new Date(),
      attachments,
    });
  }
}
