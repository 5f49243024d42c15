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

  /** In agent mode and without it alike, the files of the user message reach the model. */
  /** `agent`: who the model is (the chat API's model name, or a Marketplace agent with its instructions). */
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
