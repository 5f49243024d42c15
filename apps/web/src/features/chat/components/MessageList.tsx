import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef } from 'react';
import { useMessages } from '../../../lib/i18n/messages';
import type { ChatItem } from '../history';
import { chatText } from '../messages';
import { Answer } from './Answer';

interface Props {
  items: ChatItem[];
  streaming: boolean;
  /** A message to show and mark once the history is in (a search result). */
  focusMessageId?: string;
  /** There is older history to load (the list asks when scrolled near its top). */
  hasOlder: boolean;
  loadOlder(): Promise<void>;
  onAnswer(text: string): void;
}

/** How close to the end (px) still counts as reading the latest message, which the list then follows. */
const FOLLOW_SLACK = 48;
/** How close to the top (px) asks for the next older page. */
const OLDER_SLACK = 400;
/** Pages a search result may look back through for its message. */
const FIND_PAGES = 20;
/** Frames a found message may take to render before the list gives up focusing it. */
const FIND_FRAMES = 60;

/**
 * The conversation's messages, virtualized (only the rows in and near view are in the DOM, so 2,000 messages
 * open as fast as 20). A log that screen readers announce when an answer starts and ends (`aria-busy`
 * while it streams); it follows the newest message while the reader is at the end, and loads older
 * history when scrolled to the top.
 */
export function MessageList({ items, streaming, focusMessageId, hasOlder, loadOlder, onAnswer }: Props) {
  const t = useMessages(chatText);
  const scroller = useRef<HTMLDivElement>(null);
  // One function for every answer, so that a scroll (which draws the list again) draws no answer again.
  const latestOnAnswer = useRef(onAnswer);
  useLayoutEffect(() => {
    latestOnAnswer.current = onAnswer;
  }, [onAnswer]);
  const answer = useCallback((text: string) => latestOnAnswer.current(text), []);
  const following = useRef(true);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 96,
    overscan: 6,
    getItemKey: (index) => items[index].key,
  });
  const total = virtualizer.getTotalSize();
  const lastKey = items[items.length - 1]?.key;

  // At the end, stay at the end: as an answer grows, as rows are measured, when a conversation opens.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && following.current && !focusMessageId) element.scrollTop = element.scrollHeight;
  }, [total, lastKey, items, focusMessageId]);

  // Older messages came in above: keep the reader where they were (the rows they saw move down by the new ones).
  const firstKey = items[0]?.key;
  const previousFirst = useRef(firstKey);
  useLayoutEffect(() => {
    const before = previousFirst.current;
    previousFirst.current = firstKey;
    const element = scroller.current;
    if (!element || before === undefined || before === firstKey) return;
    const shifted = items.findIndex((item) => item.key === before);
    if (shifted > 0) element.scrollTop += virtualizer.measurementsCache[shifted]?.start ?? 0;
  }, [firstKey, items, virtualizer]);

  // A search result: look back through older pages until its message is loaded, then show and focus it.
  const found = focusMessageId ? items.findIndex((item) => item.key === focusMessageId) : -1;
  const lookedBack = useRef(0);
  useEffect(() => {
    if (!focusMessageId) return;
    if (found < 0) {
      if (hasOlder && lookedBack.current++ < FIND_PAGES) void loadOlder();
      return;
    }
    following.current = false;
    // The row renders once the list has scrolled to it, which may take a few frames while rows are measured.
    let frame = 0;
    let tries = 0;
    const show = () => {
      const target = scroller.current?.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(focusMessageId)}"]`);
      if (target) {
        target.scrollIntoView({ block: 'center' });
        target.focus({ preventScroll: true });
      } else if (tries++ < FIND_FRAMES) {
        virtualizer.scrollToIndex(found, { align: 'center' });
        frame = requestAnimationFrame(show);
      }
    };
    virtualizer.scrollToIndex(found, { align: 'center' });
    frame = requestAnimationFrame(show);
    return () => cancelAnimationFrame(frame);
  }, [focusMessageId, found, hasOlder, loadOlder, virtualizer]);
  useEffect(() => {
    lookedBack.current = 0;
  }, [focusMessageId]);

  const onScroll = () => {
    const element = scroller.current;
    if (!element) return;
    following.current = element.scrollHeight - element.scrollTop - element.clientHeight < FOLLOW_SLACK;
    if (hasOlder && element.scrollTop < OLDER_SLACK) void loadOlder();
  };

  return (
    <div className="messages" role="log" aria-live="polite" aria-busy={streaming} ref={scroller} onScroll={onScroll}>
      <div className="message-rows" style={{ height: total }}>
        {virtualizer.getVirtualItems().map((row) => {
          const item = items[row.index];
          return (
            <div
              key={row.key}
              className="message-row"
              data-index={row.index}
              ref={virtualizer.measureElement}
              style={{ transform: `translateY(${row.start}px)` }}
            >
              {item.kind === 'user' ? (
                <p
                  className={`question${item.key === focusMessageId ? ' found' : ''}`}
                  data-message-id={item.key}
                  tabIndex={-1}
                >
                  {item.text}
                  {item.files.length > 0 && (
                    <span className="message-files" aria-label={t.attachedFiles}>
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
                  messageKey={item.key}
                  found={item.key === focusMessageId}
                  view={item.view}
                  // Only the last answer's request is still open: any later message answered it.
                  open={row.index === items.length - 1 && !streaming}
                  onAnswer={answer}
                />
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}
