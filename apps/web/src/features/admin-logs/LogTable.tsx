import { useQueries } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import { useAuth } from '../../lib/auth/auth-context';
import { LOGS, LOG_PAGE, type LogKind, type LogRange, type LogRecord, listLogPage, logsKey } from './api';
import { useLogTime } from './log-time';

/** Rows have one fixed height: nothing is measured, so a scroll over 10^6 rows lays out only what is in view. */
export const ROW_HEIGHT = 32;
/** Browsers cap an element's height (Chromium near 33.5 million px): the rows beyond that do not scroll. */
export const MAX_SCROLL_ROWS = Math.floor(33_000_000 / ROW_HEIGHT);
/** A new set of pages is asked for at most this often while the view moves (a dragged scrollbar crosses many). */
const PAGE_THROTTLE_MS = 120;

interface LogTableProps {
  kind: LogKind;
  range: LogRange;
  total: number;
  columns: readonly string[];
  label: string;
  timeLabel: string;
  loadingLabel: string;
  openLabel(time: string): string;
  onOpen(record: LogRecord): void;
}

/** One page of a log's list as a query: the screen's total and the table's rows share page 1's cache entry. */
export function logPageQuery(token: () => Promise<string>, kind: LogKind, range: LogRange, page: number) {
  return {
    queryKey: [...logsKey(kind, range), page],
    queryFn: async ({ signal }: { signal: AbortSignal }) => listLogPage(await token(), kind, range, page, signal),
    staleTime: 60_000,
    gcTime: 60_000,
  };
}

const cellText = (value: unknown) =>
  value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);

/** The latest value, changing at most every `ms` (its last change always lands). */
function useThrottled<T>(value: T, ms: number, same: (a: T, b: T) => boolean): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    if (same(shown, value)) return;
    const wait = Math.max(0, last.current + ms - Date.now());
    const timer = setTimeout(() => {
      last.current = Date.now();
      setShown(value);
    }, wait);
    return () => clearTimeout(timer);
  }, [value, shown, ms, same]);
  return shown;
}

const samePages = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((page, i) => page === b[i]);

/**
 * A real `<table>` whose body is virtualized: `aria-rowcount` is the list's total and each row says its
 * `aria-rowindex`; only the rows in and near view exist, between two spacer rows. Each page of 100 rows is
 * one query, asked for as it comes into view; rows not loaded yet show a placeholder. The box is focusable,
 * so arrow keys, Page Up/Down, Home and End scroll it; the header sticks.
 */
export function LogTable(props: LogTableProps) {
  const { kind, range, total, columns } = props;
  const auth = useAuth();
  const timeOf = useLogTime();
  const spec = LOGS[kind];
  const scroller = useRef<HTMLDivElement>(null);
  const count = Math.min(total, MAX_SCROLL_ROWS);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items.at(-1)?.index ?? 0;
  const wanted: number[] = [];
  if (count > 0) {
    for (let page = Math.floor(first / LOG_PAGE) + 1; page <= Math.floor(last / LOG_PAGE) + 1; page++) {
      wanted.push(page);
    }
  }
  const pages = useThrottled(wanted, PAGE_THROTTLE_MS, samePages);
  const results = useQueries({
    queries: pages.map((page) => logPageQuery(() => auth.accessToken(), kind, range, page)),
  });
  const loaded = new Map<number, LogRecord[]>();
  pages.forEach((page, i) => {
    const rows = results[i]?.data?.rows;
    if (rows) loaded.set(page, rows);
  });
  const rowAt = (index: number) => loaded.get(Math.floor(index / LOG_PAGE) + 1)?.[index % LOG_PAGE];

  const before = items[0]?.start ?? 0;
  const after = items.length > 0 ? virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0) : 0;
  const width = columns.length + 1;
  return (
    <div ref={scroller} className="table-scroll log-scroll" tabIndex={0} role="region" aria-label={props.label}>
      <table className="console-table log-table" aria-rowcount={total + 1}>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col">{props.timeLabel}</th>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {before > 0 && (
            <tr aria-hidden="true" className="log-spacer" style={{ height: before }}>
              <td colSpan={width} />
            </tr>
          )}
          {items.map((item) => {
            const record = rowAt(item.index);
            if (!record) {
              return (
                <tr key={item.index} aria-rowindex={item.index + 2} className="log-placeholder" aria-busy="true">
                  <td colSpan={width}>
                    <span className="log-skeleton">{props.loadingLabel}</span>
                  </td>
                </tr>
              );
            }
            const time = cellText(record[spec.timeField]);
            const shownTime = time ? timeOf(time) : '';
            return (
              <tr key={item.index} aria-rowindex={item.index + 2} data-row-id={cellText(record[spec.idField])}>
                <th scope="row">
                  <button
                    type="button"
                    className="log-open"
                    aria-label={props.openLabel(shownTime)}
                    onClick={() => props.onOpen(record)}
                  >
                    <time dateTime={time}>{shownTime}</time>
                  </button>
                </th>
                {columns.map((column) => {
                  const text = cellText(record[column]);
                  return (
                    <td key={column} data-column={column} title={text.length > 40 ? text : undefined}>
                      {text}
                    </td>
                  );
                })}
              </tr>
            );
          })}
          {after > 0 && (
            <tr aria-hidden="true" className="log-spacer" style={{ height: after }}>
              <td colSpan={width} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
