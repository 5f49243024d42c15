import { type ClipboardEvent, type DragEvent, type FormEvent, type KeyboardEvent, useRef, useState } from 'react';
import { useMessages } from '../../lib/i18n/messages';
import { MessageList } from './components/MessageList';
import { LibraryButton, type LibraryPick, LibraryPicker, LibraryPicks } from './library/LibraryPicker';
import { AttachmentList } from './files/AttachmentList';
import { useAttachments } from './files/use-attachments';
import { TurnOptionsPanel } from './components/TurnOptionsPanel';
import { defaultTurnOptions } from './stream/turn-stream';
import { chatText } from './messages';
import { useConversationTurns } from './use-turn';

/** The message box's id: the page's skip link leads to it. */
export const COMPOSER_ID = 'composer-text';

interface Props {
  conversationId?: string;
  /** A message to show and mark once the history is in (a search result). */
  focusMessageId?: string;
  /** A new conversation's id, from its first turn's stream. */
  onStarted(conversationId: string): void;
  /** A turn's stream ended: lists may show the conversation anew. */
  onEnded?(conversationId: string): void;
}

export function Chat({ conversationId, focusMessageId, onStarted, onEnded }: Props) {
  const { items, streaming, send, stop, hasOlder, loadOlder } = useConversationTurns(
    conversationId,
    onStarted,
    onEnded,
  );
  const t = useMessages(chatText);
  const [draft, setDraft] = useState('');
  const [options, setOptions] = useState(defaultTurnOptions);
  const files = useAttachments();
  const picker = useRef<HTMLInputElement>(null);
  const [libraryOpen, setLibraryOpen] = useState(false);
  const [picks, setPicks] = useState<LibraryPick[]>([]);
  const composer = useRef<HTMLTextAreaElement>(null);

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || streaming || files.uploading) return;
    const attached = [
      ...files.attachments.flatMap((a) => (a.uploaded ? [a.uploaded] : [])),
      ...picks.map((pick) => ({ filepath: pick.filepath, filename: pick.title })),
    ];
    setDraft('');
    files.clear();
    setPicks([]);
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
    <section className="chat" aria-label={t.conversation}>
      <MessageList
        items={items}
        streaming={streaming}
        focusMessageId={focusMessageId}
        hasOlder={hasOlder}
        loadOlder={loadOlder}
        onAnswer={(text) => void send(text, options)}
      />
      <TurnOptionsPanel options={options} onChange={setOptions} />
      <AttachmentList attachments={files.attachments} onRemove={files.remove} />
      <LibraryPicks
        picks={picks}
        onRemove={(filepath) => setPicks((all) => all.filter((p) => p.filepath !== filepath))}
      />
      <LibraryPicker
        open={libraryOpen}
        onClose={() => {
          setLibraryOpen(false);
          composer.current?.focus();
        }}
        onFile={(pick) => setPicks((all) => (all.some((p) => p.filepath === pick.filepath) ? all : [...all, pick]))}
        onTemplate={(text) => setDraft((current) => (current.trim() ? `${current}\n\n${text}` : text))}
      />
      <form className="composer" onSubmit={submit} onDrop={onDrop} onDragOver={(event) => event.preventDefault()}>
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          aria-label={t.attachFiles}
          onChange={(event) => {
            void files.add([...(event.target.files ?? [])]);
            event.target.value = '';
          }}
        />
        <button type="button" className="attach" onClick={() => picker.current?.click()}>
          {t.attach}
        </button>
        <LibraryButton onClick={() => setLibraryOpen(true)} />
        <label htmlFor={COMPOSER_ID} className="visually-hidden">
          {t.message}
        </label>
        <textarea
          ref={composer}
          id={COMPOSER_ID}
          value={draft}
          rows={2}
          placeholder={t.askTheAgent}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
        {streaming ? (
          <button type="button" onClick={() => void stop()}>
            {t.stop}
          </button>
        ) : (
          <button type="submit" disabled={!draft.trim() || files.uploading}>
            {t.send}
          </button>
        )}
      </form>
    </section>
  );
}
