import type { ClaimedTurn } from '@fed/conversations';
import type { ChatMessage } from '../model/chat-wire';
import { ASK_USER } from '../tools/ask-user.tool';
import type { ResolvedCatalog } from '../../catalog/catalog.service';

/**
 * History beyond this many characters is left out, oldest first: 40 messages of up to 1 MB each
 * would not fit any model's context.
 */
export const HISTORY_CHARACTERS = 200_000;

export interface PromptInput {
  turn: ClaimedTurn;
  catalog: ResolvedCatalog;
  /** The chat API's model name: what the agent calls itself. */
  agentName: string;
  /** Agent mode: the model gets tools. */
  withTools: boolean;
  now: Date;
}

/**
 * The model's messages for a turn: the system prompt, the earlier conversation, then the user's
 * message, or, when the turn answers an `ask_user` call, that call and the answer as its result.
 */
export function buildPrompt(input: PromptInput): ChatMessage[] {
  const { turn } = input;
  const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt(input) }];
  for (const message of boundedHistory(turn.history)) {
    messages.push(
      message.sender === 'User'
        ? { role: 'user', content: message.text }
        : { role: 'assistant', content: message.text },
    );
  }
  const userText = withAttachments(turn.userMessage.text, turn.userMessage.files.length);
  const pending = turn.pendingInteraction;
  if (!pending) {
    messages.push({ role: 'user', content: userText });
  } else if (input.withTools) {
    messages.push(
      {
        role: 'assistant',
        content: pending.assistantText || null,
        tool_calls: [
          { id: pending.callId, type: 'function', function: { name: pending.toolName, arguments: pending.arguments } },
        ],
      },
      { role: 'tool', tool_call_id: pending.callId, content: userText },
    );
  } else {
    // Without tools a tool call cannot be sent back: the question becomes text.
    messages.push(
      {
        role: 'assistant',
        content: [pending.assistantText, questionOf(pending.arguments)].filter(Boolean).join('\n\n'),
      },
      { role: 'user', content: userText },
    );
  }
  return messages;
}

function systemPrompt({ catalog, agentName, withTools, turn, now }: PromptInput): string {
  const parts = [
    `You are ${agentName}, the autonomous agent of this service. You answer the user's messages in a ` +
      'conversation and keep working until their request is done.',
    `Today is ${now.toISOString().slice(0, 10)}.`,
  ];
  if (turn.options.outputFormat === 'plain') {
    parts.push('Write plain text: no Markdown headings, emphasis, tables or diagrams.');
  }
  if (withTools) {
    parts.push(
      'Use your tools when they help. When you need a decision, a confirmation or information only the user ' +
        `has, call ${ASK_USER}: your turn then ends, and the user's next message is the answer.`,
    );
  }
  if (catalog.persona) parts.push(`# Persona: ${catalog.persona.name}\n\n${catalog.persona.instructions}`);
  if (catalog.playbook) parts.push(`# Playbook: ${catalog.playbook.name}\n\n${catalog.playbook.instructions}`);
  for (const skill of catalog.skills) parts.push(`# Skill: ${skill.name}\n\n${skill.instructions}`);
  return parts.join('\n\n');
}

/** The newest messages that fit HISTORY_CHARACTERS, oldest first; empty ones are left out. */
function boundedHistory(history: ClaimedTurn['history']): ClaimedTurn['history'] {
  const kept: ClaimedTurn['history'] = [];
  let characters = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i];
    if (message.text.length === 0) continue;
    characters += message.text.length;
    if (characters > HISTORY_CHARACTERS) break;
    kept.unshift(message);
  }
  return kept;
}

function withAttachments(text: string, files: number): string {
  if (files === 0) return text;
  return `${text}\n\n(The user attached ${files === 1 ? 'a file' : `${files} files`} to this message.)`;
}

function questionOf(toolArguments: string): string {
  try {
    const parsed = JSON.parse(toolArguments) as { content?: unknown };
    return typeof parsed.content === 'string' ? parsed.content : '';
  } catch {
    return '';
  }
}
