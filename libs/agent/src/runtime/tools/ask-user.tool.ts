import type { InteractionType } from '@fed/contracts';
import { type AgentTool, type ToolOutcome, quoted } from './agent-tool';

export const ASK_USER = 'ask_user';

interface AskUserArgs {
  interactionType: InteractionType;
  content: string;
  options?: string[];
}

/**
 * Asks the user and ends the turn (document 2, `delta.interaction`): a choice among options, a
 * confirmation (approve and deny labels) or open questions. The user's next message is the answer.
 */
export class AskUserTool implements AgentTool<AskUserArgs> {
  readonly name = ASK_USER;
  readonly description =
    'Ask the user when you need a decision, a confirmation or information only they have. Your turn ends; ' +
    "the user's next message is the answer. interactionType: `choice` (pick one of `options`), " +
    '`confirmation` (`options` are the approve and deny labels, usually two) or `question` (open questions ' +
    'in `content`, no options).';
  readonly parameters = {
    type: 'object',
    properties: {
      interactionType: { type: 'string', enum: ['choice', 'confirmation', 'question'] },
      content: { type: 'string', minLength: 1, maxLength: 10_000, description: 'What to ask, in plain words.' },
      options: {
        type: 'array',
        maxItems: 10,
        items: { type: 'string', minLength: 1, maxLength: 200 },
        description: 'At most 10 answers to pick from, each at most 200 characters; never for `question`.',
      },
    },
    required: ['interactionType', 'content'],
    additionalProperties: false,
  };

  describe(): { title: string; description: string } {
    return { title: 'Asking you', description: 'Preparing a question for you' };
  }

  async run(args: AskUserArgs): Promise<ToolOutcome> {
    if (args.interactionType === 'question' && args.options !== undefined) {
      return {
        status: 'failed',
        error: '`options` are not allowed when interactionType is `question`: ask in `content` instead.',
        label: { title: 'Could not ask you', description: 'The question was malformed' },
      };
    }
    return {
      status: 'interaction',
      interaction: {
        interactionType: args.interactionType,
        content: args.content,
        ...(args.options ? { options: args.options } : {}),
      },
      label: { title: 'Waiting for your answer', description: quoted(args.content) },
    };
  }
}
