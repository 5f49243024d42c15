import type { Interaction } from '@fed/contracts/chat-chunk';
import { type FormEvent, useState } from 'react';
import { useMessages } from '../../../lib/i18n/messages';
import { chatText } from '../messages';
import { UiResourceView } from '../ui-resources/UiResourceView';

interface Props {
  interaction: Interaction;
  /** Where its UI resource (a choice card, a question form) is retrieved from. */
  conversationId?: string;
  /** Still open: the next message of the conversation answers it. */
  open: boolean;
  onAnswer(text: string): void;
}

/**
 * A request of the agent, answered by a new message with the same conversation (document 2): a choice's options
 * and a confirmation's labels as buttons, a question as a form.
 */
export function InteractionRequest({ interaction, conversationId, open, onAnswer }: Props) {
  const t = useMessages(chatText);
  const [reply, setReply] = useState('');
  const { interactionType, content } = interaction;
  const options = interaction.options ?? [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (reply.trim()) onAnswer(reply.trim());
  };
  const heading =
    interactionType === 'confirmation' ? t.asksApproval : interactionType === 'choice' ? t.asksChoice : t.asksQuestion;

  return (
    <section className={`interaction interaction-${interactionType}`} aria-label={heading} data-testid="interaction">
      <h3>{heading}</h3>
      <p className="interaction-content">{content}</p>
      {interaction.uiResource && <UiResourceView resource={interaction.uiResource} conversationId={conversationId} />}
      {interactionType === 'question' ? (
        open && (
          <form onSubmit={submit} className="interaction-form">
            <label htmlFor="interaction-reply">{t.yourAnswer}</label>
            <textarea
              id="interaction-reply"
              rows={2}
              value={reply}
              onChange={(event) => setReply(event.target.value)}
            />
            <button type="submit" disabled={!reply.trim()}>
              {t.answer}
            </button>
          </form>
        )
      ) : (
        <div className="interaction-options" role="group" aria-label={heading}>
          {(options.length > 0 ? options : interactionType === 'confirmation' ? [t.approve, t.deny] : []).map(
            (option) => (
              <button key={option} type="button" disabled={!open} onClick={() => onAnswer(option)}>
                {option}
              </button>
            ),
          )}
        </div>
      )}
      {open && interactionType === 'choice' && options.length === 0 && <p className="muted">{t.answerBelow}</p>}
      {!open && <p className="muted">{t.answered}</p>}
    </section>
  );
}
