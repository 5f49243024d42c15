import { type FormEvent, type KeyboardEvent, useState } from 'react';
import { useConversationTurns } from './use-turn';

const PHASE_LABEL = { streaming: 'Answering…', completed: '', unfinished: 'Stopped', failed: 'Failed' } as const;

export function Chat() {
  const { exchanges, streaming, send, stop } = useConversationTurns();
  const [draft, setDraft] = useState('');

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || streaming) return;
    setDraft('');
    void send(text);
  };
  // Enter sends, Shift+Enter starts a new line (and Enter while composing an IME word does neither).
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) submit(event);
  };

  return (
    <section className="chat" aria-label="Conversation">
      <div className="messages" role="log" aria-live="polite" aria-busy={streaming}>
        {exchanges.map((exchange, index) => (
          <article key={index} className="exchange">
            <p className="question">{exchange.question}</p>
            <div className="answer" data-testid="answer" data-phase={exchange.answer.phase}>
              <p className="answer-text">{exchange.answer.text}</p>
              {exchange.answer.error && <p role="alert">{exchange.answer.error.message}</p>}
              {PHASE_LABEL[exchange.answer.phase] && (
                <p className="answer-phase">{PHASE_LABEL[exchange.answer.phase]}</p>
              )}
            </div>
          </article>
        ))}
      </div>
      <form className="composer" onSubmit={submit}>
        <label htmlFor="composer-text" className="visually-hidden">
          Message
        </label>
        <textarea
          id="composer-text"
          value={draft}
          rows={2}
          placeholder="Ask the agent"
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
        {streaming ? (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!draft.trim()}>
            Send
          </button>
        )}
      </form>
    </section>
  );
}
