import { useEffect, useRef } from 'react';
import type { ChatItem } from '../history';
import { Answer } from './Answer';

interface Props {
  items: ChatItem[];
  streaming: boolean;
  /** A message to show and mark once the history is in (a search result). */
  focusMessageId?: string;
  onAnswer(text: string): void;
}

/** The conversation's messages: a log that screen readers announce when an answer starts and when it ends. */
export function MessageList({ items, streaming, focusMessageId, onAnswer }: Props) {
  const log = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!focusMessageId) return;
    const target = log.current?.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(focusMessageId)}"]`);
    if (!target) return;
    target.scrollIntoView({ block: 'center' });
    target.focus();
  }, [focusMessageId, items.length]);
  return (
    <div className="messages" role="log" aria-live="polite" aria-busy={streaming} ref={log}>
      {items.map((item, index) =>
        item.kind === 'user' ? (
          <p
            key={item.key}
            className={`question${item.key === focusMessageId ? ' found' : ''}`}
            data-message-id={item.key}
            tabIndex={-1}
          >
            {item.text}
            {item.files.length > 0 && (
              <span className="message-files" aria-label="Attached files">
                {item.files.map((name, i) => (
                  <span key={i} className="message-file">
                    {name}
                  </span>
                ))}
              </span>
            )}
          </p>
        ) : (
          <Answer
            key={item.key}
            messageKey={item.key}
            found={item.key === focusMessageId}
            view={item.view}
            // Only the last answer's request is still open: any later message answered it.
            open={index === items.length - 1 && !streaming}
            onAnswer={onAnswer}
          />
        ),
      )}
    </div>
  );
}
