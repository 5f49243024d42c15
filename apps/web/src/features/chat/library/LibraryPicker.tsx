import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useAuth } from '../../../lib/auth/auth-context';
import { useMessages } from '../../../lib/i18n/messages';
import { type LibraryItem, loadLibrary } from './api';
import { libraryMessages } from './messages';

/** A library file attached to the next message (`input_file` with `filepath`). */
export interface LibraryPick {
  filepath: string;
  title: string;
}

interface Props {
  open: boolean;
  onClose(): void;
  /** A file: attached to the next message. */
  onFile(pick: LibraryPick): void;
  /** A prompt template: its text starts the message. */
  onTemplate(text: string): void;
}

/** The library in a modal dialog (the browser's own: focus kept inside, Escape closes), pages loaded on demand. */
export function LibraryPicker({ open, onClose, onFile, onTemplate }: Props) {
  const t = useMessages(libraryMessages);
  const auth = useAuth();
  const dialog = useRef<HTMLDialogElement>(null);
  const library = useInfiniteQuery({
    queryKey: ['library'],
    enabled: open,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => loadLibrary(await auth.accessToken(), pageParam),
    getNextPageParam: (last) => (last.hasMore ? last.cursor : undefined),
  });
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);

  const pick = (item: LibraryItem) => {
    if (item.kind === 'prompt_template') onTemplate(item.content ?? '');
    else onFile({ filepath: item.filepath, title: item.title });
    onClose();
  };
  const items = library.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <dialog ref={dialog} className="library" aria-labelledby="library-title" onClose={onClose}>
      <div className="library-head">
        <h2 id="library-title">{t.title}</h2>
        <button type="button" onClick={onClose}>
          {t.close}
        </button>
      </div>
      {library.isPending && open && <p>{t.loading}</p>}
      {library.isError && <p role="alert">{t.failed}</p>}
      {library.isSuccess && items.length === 0 && <p>{t.empty}</p>}
      <ul className="library-items">
        {items.map((item) => (
          <li key={item.filepath}>
            <button type="button" className="library-item" onClick={() => pick(item)}>
              <span className="library-item-title">{item.title}</span>
              <span className="muted">
                {item.kind === 'prompt_template' ? t.template : t.file} · {item.filepath}
              </span>
              {item.description && <span className="library-item-description">{item.description}</span>}
            </button>
          </li>
        ))}
      </ul>
      {library.hasNextPage && (
        <button type="button" disabled={library.isFetchingNextPage} onClick={() => void library.fetchNextPage()}>
          {t.more}
        </button>
      )}
    </dialog>
  );
}

/** The composer's button that opens the library. */
export function LibraryButton({ onClick }: { onClick(): void }) {
  const t = useMessages(libraryMessages);
  return (
    <button type="button" className="attach" onClick={onClick}>
      {t.open}
    </button>
  );
}

/** The library files picked for the next message, each removable. */
export function LibraryPicks({ picks, onRemove }: { picks: LibraryPick[]; onRemove(filepath: string): void }) {
  const t = useMessages(libraryMessages);
  if (picks.length === 0) return null;
  return (
    <ul className="attachments" aria-label={t.picked}>
      {picks.map((pick) => (
        <li key={pick.filepath} className="attachment" data-state="library">
          <span className="attachment-name">{pick.title}</span> <span className="muted">{pick.filepath}</span>
          <button type="button" aria-label={t.remove(pick.title)} onClick={() => onRemove(pick.filepath)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
