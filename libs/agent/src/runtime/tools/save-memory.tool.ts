import { type MemberProfiles } from '@fed/identity';
import { MAX_ITEM_TEXT, type MemoryItems, MemoryError } from '@fed/memory';
import { type AgentTool, type ToolContext, type ToolOutcome, quoted } from './agent-tool';

interface SaveMemoryArgs {
  text: string;
}

const LABEL_LENGTH = 60;

/** Keeps a fact in the user's tenant's shared memory, scoped to their organization if any. */
export class SaveMemoryTool implements AgentTool<SaveMemoryArgs> {
  readonly name = 'save_memory';
  readonly description =
    'Save a lasting fact to the shared memory (what colleagues and later conversations should know: ' +
    'decisions, conventions, contacts). One self-contained fact per call; never personal or secret data.';
  readonly parameters = {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1, maxLength: MAX_ITEM_TEXT, description: 'The fact, self-contained.' },
    },
    required: ['text'],
    additionalProperties: false,
  };

  constructor(
    private readonly items: MemoryItems,
    private readonly profiles: MemberProfiles,
  ) {}

  /** Not in private turns, nor for Marketplace agents: shared memory is the SaaS tenant's; agents stay apart. */
  offered(turn: { privateMode: boolean; agentId?: string }): boolean {
    return !turn.privateMode && turn.agentId === undefined;
  }

  describe(args: SaveMemoryArgs): { title: string; description: string } {
    return { title: 'Saving to shared memory', description: quoted(short(args.text)) };
  }

  async run(args: SaveMemoryArgs, context: ToolContext): Promise<ToolOutcome> {
    const label = { title: 'Shared memory not saved', description: quoted(short(args.text)) };
    if (context.privateMode) return { status: 'failed', error: 'A private conversation keeps nothing.', label };
    const { orgId } = await this.profiles.of(context.userId);
    try {
      await this.items.add(
        [
          {
            text: args.text,
            scope: orgId ? 'organization' : 'global',
            orgId: orgId ?? null,
            tenantId: context.tenantId,
            source: context.conversationId,
          },
        ],
        context.signal,
      );
    } catch (error) {
      if (!(error instanceof MemoryError)) throw error;
      return { status: 'failed', error: `Not saved: ${error.message}`, label };
    }
    return {
      status: 'completed',
      content: JSON.stringify({ saved: true, scope: orgId ? 'organization' : 'global' }),
      label: { title: 'Saved to shared memory', description: quoted(short(args.text)) },
    };
  }
}

function short(text: string): string {
  return text.length > LABEL_LENGTH ? `${text.slice(0, LABEL_LENGTH)}…` : text;
}
