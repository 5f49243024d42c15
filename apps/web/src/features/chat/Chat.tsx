import {
  type ClipboardEvent,
  type DragEvent,
  type FormEvent,
  type KeyboardEvent,
  Suspense,
  lazy,
  useEffect,
  useRef,
  useState,
} from 'react';
import { InteractionRequest } from './components/InteractionRequest';
import { TaskList } from './components/TaskList';
import { AttachmentList } from './files/AttachmentList';
import { DeliverableList } from './files/DeliverableList';
import { useAttachments } from './files/use-attachments';
import { TurnOptionsPanel } from './components/TurnOptionsPanel';
import { defaultTurnOptions } from './stream/turn-stream';
import type { TurnView } from './stream/turn-view';
import { useConversationTurns } from './use-turn';

// The Markdown renderer (and its highlighter) loads with the first answer, not with the first screen.
const Markdown = lazy(() => import('./components/Markdown'));

const PHASE_LABEL = { streaming: 'Answering…', completed: '', unfinished: 'Stopped', failed: 'Failed' } as const;

interface Props {
  conversationId?: string;
  /** A message to show and mark once the history is in (a search result). */
  focusMessageId?: string;
  /** A new conversation's id, from its first turn's stream. */
  onStarted(conversationId: string): void;
}

export function Chat({ conversationId, focusMessageId, onStarted }: Props) {
  const { items, streaming, send, stop } = useConversationTurns(conversationId, onStarted);
  const log = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!focusMessageId) return;
    const target = log.current?.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(focusMessageId)}"]`);
    if (!target) return;
    target.scrollIntoView({ block: 'center' });
    target.focus();
  }, [focusMessageId, items.length]);
  const [draft, setDraft] = useState('');
  const [options, setOptions] = useState(defaultTurnOptions);
  const files = useAttachments();
  const picker = useRef<HTMLInputElement>(null);

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || streaming || files.uploading) return;
    const attached = files.attachments.flatMap((a) => (a.uploaded ? [a.uploaded] : []));
    setDraft('');
    files.clear();
    void send(text, options, attached);
  };
  const onDrop = (event: DragEvent) => {
    if (event.dataTransfer.files.length === 0) return;
    event.preventDefault();
    void files.add([...event.dataTransfer.files]);
  };
  const onPaste = (event: ClipboardEvent) => {
    if (event.clipboardData.files.length === 0) return;
    event.preventDefault();
    void files.add([...event.clipboardData.files]);
  };
  // Enter sends, Shift+Enter starts a new line (and Enter while composing an IME word does neither).
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) submit(event);
  };

  return (
    <section className="chat" aria-label="Conversation">
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
              onAnswer={(text) => void send(text, options)}
            />
          ),
        )}
      </div>
      <TurnOptionsPanel options={options} onChange={setOptions} />
      <AttachmentList attachments={files.attachments} onRemove={files.remove} />
      <form className="composer" onSubmit={submit} onDrop={onDrop} onDragOver={(event) => event.preventDefault()}>
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          aria-label="Attach files"
          onChange={(event) => {
            void files.add([...(event.target.files ?? [])]);
            event.target.value = '';
          }}
        />
        <button type="button" className="attach" onClick={() => picker.current?.click()}>
          Attach
        </button>
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
          onPaste={onPaste}
        />
        {streaming ? (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!draft.trim() || files.uploading}>
            Send
          </button>
        )}
      </form>
    </section>
  );
}

interface AnswerProps {
  messageKey: string;
  found: boolean;
  view: TurnView;
  open: boolean;
  onAnswer(text: string): void;
}

function Answer({ messageKey, found, view, open, onAnswer }: AnswerProps) {
  return (
    <div
      className={`answer${found ? ' found' : ''}`}
      data-testid="answer"
      data-phase={view.phase}
      data-message-id={messageKey}
      tabIndex={-1}
    >
      <TaskList steps={view.steps} />
      <div className="answer-text">
        <Suspense fallback={<p className="plain-text">{view.text}</p>}>
          <Markdown text={view.text} />
        </Suspense>
      </div>
      <DeliverableList
        conversationId={view.conversationId}
        messageId={view.messageId}
        deliverables={view.deliverables}
      />
      {view.interaction && <InteractionRequest interaction={view.interaction} open={open} onAnswer={onAnswer} />}
      {view.error && <p role="alert">{view.error.message}</p>}
      {PHASE_LABEL[view.phase] && <p className="answer-phase">{PHASE_LABEL[view.phase]}</p>}
    </div>
  );
}
