import { useEffect, useRef } from 'react';
import { useMessages } from '../../../lib/i18n/messages';
import { uiResourceText } from './messages';

interface Props {
  url: URL;
  /** Who asks: the tool server's name, or the answer's own view. */
  source: string;
  onDecide(open: boolean): void;
}

/**
 * A view's request to open a link, asked of the person: a modal native dialog (Escape cancels, focus stays in
 * it, Cancel has it first) that shows the whole address and the host it goes to.
 */
export function LinkDialog({ url, source, onDecide }: Props) {
  const t = useMessages(uiResourceText);
  const dialog = useRef<HTMLDialogElement>(null);
  const decided = useRef(false);
  const decide = (open: boolean) => {
    if (decided.current) return;
    decided.current = true;
    dialog.current?.close();
    onDecide(open);
  };

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => {
      // Unmounted undecided (the answer went away): the link is not opened.
      if (!decided.current) {
        decided.current = true;
        onDecide(false);
      }
    };
  }, [onDecide]);

  return (
    <dialog
      ref={dialog}
      className="ui-link-dialog"
      aria-labelledby="ui-link-title"
      onCancel={(event) => {
        event.preventDefault();
        decide(false);
      }}
    >
      <h2 id="ui-link-title">{t.linkTitle}</h2>
      <p>{t.linkAsks(source)}</p>
      <p className="ui-link-url" dir="ltr">
        {url.href}
      </p>
      <p>{t.linkGoesTo(url.host)}</p>
      <div className="ui-link-actions">
        <button type="button" className="secondary" autoFocus onClick={() => decide(false)}>
          {t.cancel}
        </button>
        <button type="button" onClick={() => decide(true)}>
          {t.openLink}
        </button>
      </div>
    </dialog>
  );
}
