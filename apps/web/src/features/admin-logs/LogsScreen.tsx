import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type KeyboardEvent, useId, useRef, useState } from 'react';
import { useAuth } from '../../lib/auth/auth-context';
import { useLocale } from '../../lib/i18n/locale';
import { useMessages } from '../../lib/i18n/messages';
import {
  type ExportFormat,
  LOGS,
  LOG_KINDS,
  type LogKind,
  type LogRange,
  type LogRecord,
  SEVERITIES,
  exportLog,
} from './api';
import { useColumns } from './columns';
import { LogTable, MAX_SCROLL_ROWS, logPageQuery } from './LogTable';
import { logsText } from './messages';
import { RowDetails } from './RowDetails';
import './logs.css';

type Texts = ReturnType<typeof useMessages<typeof logsText.en>>;

const severityLabel = (t: Texts, severity: string) =>
  ({ low: t.severityLow, medium: t.severityMedium, high: t.severityHigh })[severity] ?? severity;

/**
 * Logs (issue 38): the five logs of document 3 as tabs; each with the date range (and, for guardrail alerts, a
 * severity and a rule), the columns chosen for it, a virtualized table over the server's pages, a row's every
 * field in a dialog, and the range exported as CSV or JSON lines.
 */
export function LogsScreen() {
  const auth = useAuth();
  const queryClient = useQueryClient();
  const t = useMessages(logsText);
  const { locale } = useLocale();
  const id = useId();
  const [kind, setKind] = useState<LogKind>('audit');
  const [ranges, setRanges] = useState<Partial<Record<LogKind, LogRange>>>({});
  const [open, setOpen] = useState<LogRecord | undefined>();
  const [exported, setExported] = useState('');
  const tabs = useRef<Partial<Record<LogKind, HTMLButtonElement | null>>>({});
  const range = ranges[kind] ?? {};
  const spec = LOGS[kind];
  const [columns, toggleColumn] = useColumns(kind);

  // Page 1 of the range: its total sizes the table (the table reads the same cache entry for its first rows).
  const first = useQuery(logPageQuery(() => auth.accessToken(), kind, range, 1));
  const download = useMutation({
    mutationFn: async (format: ExportFormat) => exportLog(await auth.accessToken(), kind, range, format),
    onMutate: () => setExported(''),
    onSuccess: (name) => setExported(t.exported(name)),
  });

  const choose = (next: LogKind) => {
    setKind(next);
    setOpen(undefined);
    setExported('');
    download.reset();
  };
  const onTabKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    const at = LOG_KINDS.indexOf(kind);
    const step = { ArrowRight: 1, ArrowLeft: -1, Home: -at, End: LOG_KINDS.length - 1 - at }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    // Right to left, the arrows follow the reading direction.
    const rtl = document.documentElement.dir === 'rtl' && (event.key === 'ArrowRight' || event.key === 'ArrowLeft');
    const next = LOG_KINDS[(at + (rtl ? -step : step) + LOG_KINDS.length) % LOG_KINDS.length]!;
    choose(next);
    tabs.current[next]?.focus();
  };

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => {
      const value = String(form.get(name) ?? '').trim();
      return value === '' ? undefined : value;
    };
    setRanges((all) => ({
      ...all,
      [kind]: { from: text('from'), to: text('to'), severity: text('severity'), rule: text('rule') },
    }));
    setExported('');
    // Apply reads the log anew, also for the same filters (its pages are otherwise kept for a minute).
    void queryClient.invalidateQueries({ queryKey: ['admin', 'logs', kind] });
  };
  const clear = () => {
    setRanges((all) => ({ ...all, [kind]: {} }));
    setExported('');
  };

  const total = first.data?.total ?? 0;
  const count = new Intl.NumberFormat(locale);
  const title = t[kind];
  const rangeKey = JSON.stringify(range);
  return (
    <section className="console-screen logs-screen" aria-labelledby="logs-title">
      <h2 id="logs-title">{t.logs}</h2>
      <div role="tablist" aria-label={t.log} className="log-tabs">
        {LOG_KINDS.map((each) => (
          <button
            key={each}
            ref={(element) => {
              tabs.current[each] = element;
            }}
            type="button"
            role="tab"
            id={`${id}-tab-${each}`}
            data-log={each}
            aria-selected={each === kind}
            aria-controls={`${id}-panel`}
            tabIndex={each === kind ? 0 : -1}
            onClick={() => choose(each)}
            onKeyDown={onTabKey}
          >
            {t[each]}
          </button>
        ))}
      </div>

      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${kind}`} className="log-panel">
        {/* Keys apart from the table's (siblings): a shared key left the old form in the page beside the new one. */}
        <form key={`form ${kind} ${rangeKey}`} className="console-filters" aria-label={t.filters} onSubmit={apply}>
          <fieldset className="log-range">
            <legend>{t.range}</legend>
            <label>
              {t.from} <input type="date" name="from" defaultValue={range.from} />
            </label>
            <label>
              {t.to} <input type="date" name="to" defaultValue={range.to} />
            </label>
          </fieldset>
          {kind === 'guardrail' && (
            <>
              <label>
                {t.severity}{' '}
                <select name="severity" defaultValue={range.severity ?? ''}>
                  <option value="">{t.anySeverity}</option>
                  {SEVERITIES.map((severity) => (
                    <option key={severity} value={severity}>
                      {severityLabel(t, severity)}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                {t.rule} <input type="text" name="rule" defaultValue={range.rule} maxLength={64} spellCheck={false} />
              </label>
            </>
          )}
          <button type="submit">{t.apply}</button>
          <button type="button" onClick={clear}>
            {t.clear}
          </button>
        </form>

        <div className="log-tools">
          <details className="log-columns">
            <summary>{t.columns}</summary>
            <fieldset>
              <legend className="visually-hidden">{t.columns}</legend>
              <ul>
                {spec.fields.map((field) => (
                  <li key={field}>
                    <label>
                      <input
                        type="checkbox"
                        name="column"
                        value={field}
                        checked={columns.includes(field)}
                        onChange={(event) => toggleColumn(field, event.currentTarget.checked)}
                      />{' '}
                      {field}
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
          </details>
          <div className="log-export">
            <button
              type="button"
              data-export="csv"
              disabled={download.isPending}
              onClick={() => download.mutate('csv')}
            >
              {t.exportCsv}
            </button>
            <button
              type="button"
              data-export="jsonl"
              disabled={download.isPending}
              onClick={() => download.mutate('jsonl')}
            >
              {t.exportJsonl}
            </button>
          </div>
        </div>

        <p role="status" className="console-status">
          {download.isPending ? t.exporting : exported}
        </p>
        {download.error && <p role="alert">{download.error.message}</p>}
        {first.error && <p role="alert">{first.error.message}</p>}
        {first.isPending && <p className="muted">{t.loading}</p>}
        {first.data && (
          <p className="log-count">
            {t.rowCount(count.format(total))}
            {total > MAX_SCROLL_ROWS && <> {t.capped(count.format(MAX_SCROLL_ROWS))}</>}
          </p>
        )}
        {first.data && total === 0 && <p className="muted">{t.noRows}</p>}
        {first.data && total > 0 && (
          <LogTable
            key={`table ${kind} ${rangeKey}`}
            kind={kind}
            range={range}
            total={total}
            columns={columns}
            label={t.table(title)}
            timeLabel={t.time}
            loadingLabel={t.loading}
            openLabel={t.openDetails}
            onOpen={setOpen}
          />
        )}
      </div>
      <RowDetails
        record={open}
        fields={spec.fields}
        title={t.details}
        closeLabel={t.close}
        onClose={() => setOpen(undefined)}
      />
    </section>
  );
}
