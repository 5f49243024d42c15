import type { HtmlUiResource, InteractionType } from '@fed/contracts';
import { type AgentTool, type ToolContext, type ToolOutcome, quoted } from './agent-tool';
import { FIRST_PARTY_SERVER, MCP_APP_MIME_TYPE, choiceCardHtml, questionFormHtml } from './first-party-ui';

export const ASK_USER = 'ask_user';

/** Fields of a question form at most: a longer list is not a form any more. */
const MAX_FIELDS = 20;

interface AskUserArgs {
  interactionType: InteractionType;
  content: string;
  options?: string[];
  presentation?: 'card' | 'form';
  fields?: string[];
}

/** Asks the user and ends the turn (document 2, `delta.interaction`); an optional first-party card or form shows it. */
export class AskUserTool implements AgentTool<AskUserArgs> {
  readonly name = ASK_USER;
  readonly description =
    'Ask the user when you need a decision, a confirmation or information only they have. Your turn ends; ' +
    "the user's next message is the answer. interactionType: `choice` (pick one of `options`), " +
    '`confirmation` (`options` are the approve and deny labels, usually two) or `question` (open questions ' +
    'in `content`, no options). Optional `presentation`: `card` shows a choice as a card, `form` shows a ' +
    'question as a form with one field per line of `content` (or per item of `fields`).';
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
      presentation: {
        type: 'string',
        enum: ['card', 'form'],
        description: '`card`: only with `choice` and its options. `form`: only with `question`.',
      },
      fields: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_FIELDS,
        items: { type: 'string', minLength: 1, maxLength: 200 },
        description: `Labels of the form's fields (at most ${MAX_FIELDS}); only with presentation \`form\`.`,
      },
    },
    required: ['interactionType', 'content'],
    additionalProperties: false,
  };

  describe(): { title: string; description: string } {
    return { title: 'Asking you', description: 'Preparing a question for you' };
  }

  async run(args: AskUserArgs, context: Pick<ToolContext, 'callId'>): Promise<ToolOutcome> {
    const refusal = refusalOf(args);
    if (refusal) {
      return {
        status: 'failed',
        error: refusal,
        label: { title: 'Could not ask you', description: 'The question was malformed' },
      };
    }
    const label = { title: 'Waiting for your answer', description: quoted(args.content) };
    const interaction = {
      interactionType: args.interactionType,
      content: args.content,
      // Beside a card only as its fallback: the loop never shows both.
      ...(args.options ? { options: args.options } : {}),
    };
    if (args.presentation === 'card') {
      const options = args.options ?? [];
      const html = choiceCardHtml(args.content, options);
      const altText = [args.content, ...options.map((option) => `- ${option}`)].join('\n');
      return {
        status: 'interaction',
        interaction: { ...interaction, uiResource: inputUi('choice-card', context.callId, altText, html) },
        html,
        label,
      };
    }
    if (args.presentation === 'form') {
      const fields = args.fields ?? promptLines(args.content);
      const html = questionFormHtml(args.fields ? args.content : undefined, fields);
      const altText = args.fields ? [args.content, ...fields.map((field) => `- ${field}`)].join('\n') : args.content;
      return {
        status: 'interaction',
        interaction: { ...interaction, uiResource: inputUi('question-form', context.callId, altText, html) },
        html,
        label,
      };
    }
    return { status: 'interaction', interaction, label };
  }
}

function refusalOf(args: AskUserArgs): string | undefined {
  if (args.interactionType === 'question' && args.options !== undefined) {
    return '`options` are not allowed when interactionType is `question`: ask in `content` instead.';
  }
  if (args.presentation === 'card' && (args.interactionType !== 'choice' || !args.options?.length)) {
    return 'presentation `card` needs interactionType `choice` and at least one option.';
  }
  if (args.presentation === 'form' && args.interactionType !== 'question') {
    return 'presentation `form` needs interactionType `question`.';
  }
  if (args.fields !== undefined && args.presentation !== 'form') {
    return '`fields` are only for presentation `form`.';
  }
  return undefined;
}

/** The prompts of a question: its non-empty lines, at most MAX_FIELDS. */
function promptLines(content: string): string[] {
  const prompts = content
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return prompts.slice(0, MAX_FIELDS);
}

/** First-party input UI: closed (the answer is the next message), keyed by call id, under the `federation` server. */
function inputUi(kind: 'choice-card' | 'question-form', callId: string, altText: string, html: string): HtmlUiResource {
  return {
    type: 'html',
    origin: 'first-party',
    altText,
    tool_call_id: callId,
    uri: `ui://federation/${kind}/${callId}`,
    tool_name: ASK_USER,
    server_name: FIRST_PARTY_SERVER,
    mime_type: MCP_APP_MIME_TYPE,
    capabilities: { interaction_mode: 'closed' },
    size: Buffer.byteLength(html, 'utf8'),
  };
}
