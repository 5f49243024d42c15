import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useMemo, useState } from 'react';
import { errorText } from '../../lib/api';
import { useAuth } from '../../lib/auth/auth-context';
import { useLocale } from '../../lib/i18n/locale';
import { useMessages } from '../../lib/i18n/messages';
import { USAGE_KEY, type UsageFigures, type UsageGrouping, type UsageQuery, listTenantChoices, readUsage } from './api';
import { UsageChart } from './UsageChart';
import { chartData, dayOf, msOf } from './usage-figures';
import { usageText } from './messages';
import './usage.css';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;
const TOP_GROUPS = 6;

function defaultRange(): { from: string; to: string } {
  const to = dayOf(Date.now());
  return { from: dayOf(msOf(to) - (DEFAULT_DAYS - 1) * DAY_MS), to };
}

/** Usage (issue 38): spend and tokens per UTC day and model, key or user, as charts and tables, over a range. */
export function UsageScreen({ canPickTenant }: { canPickTenant: boolean }) {
  const auth = useAuth();
  const t = useMessages(usageText);
  const { locale } = useLocale();
  const id = useId();
  const [query, setQuery] = useState<UsageQuery>({ ...defaultRange(), groupBy: 'model' });
  const [formError, setFormError] = useState('');

  const usage = useQuery({
    queryKey: [...USAGE_KEY, query],
    queryFn: async () => readUsage(await auth.accessToken(), query),
    placeholderData: keepPreviousData,
  });
  const tenants = useQuery({
    queryKey: ['admin', 'tenant-choices'],
    queryFn: async () => listTenantChoices(await auth.accessToken()),
    enabled: canPickTenant,
    staleTime: 60_000,
  });

  const formats = useMemo(() => {
    // A string is formatted as the exact decimal it is (Intl.NumberFormat v3), never through a float.
    const money = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: 'USD',
      minimumFractionDigits: 2,
      maximumFractionDigits: 8,
    });
    const axisMoney = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', maximumFractionDigits: 4 });
    const count = new Intl.NumberFormat(locale);
    const compact = new Intl.NumberFormat(locale, { notation: 'compact' });
    const day = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' });
    return {
      cost: (text: string) => money.format(text as unknown as number),
      axisCost: (value: number) => axisMoney.format(value),
      count: (value: number) => count.format(value),
      compact: (value: number) => compact.format(value),
      day: (text: string) => day.format(msOf(text)),
    };
  }, [locale]);

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const from = String(form.get('from') ?? '');
    const to = String(form.get('to') ?? '');
    const valid =
      /^\d{4}-\d{2}-\d{2}$/.test(from) &&
      /^\d{4}-\d{2}-\d{2}$/.test(to) &&
      from <= to &&
      (msOf(to) - msOf(from)) / DAY_MS + 1 <= MAX_DAYS;
    if (!valid) {
      setFormError(t.badRange);
      return;
    }
    setFormError('');
    const tenantId = String(form.get('tenantId') ?? '');
    setQuery({
      from,
      to,
      groupBy: String(form.get('groupBy')) as UsageGrouping,
      ...(canPickTenant && tenantId ? { tenantId } : {}),
    });
  };

  const report = usage.data;
  const data = useMemo(() => (report ? chartData(report, TOP_GROUPS) : undefined), [report]);
  const groupName = (group: string | null | undefined) => (group === null || group === undefined ? t.none : group);
  const chartLabel = (index: number) => {
    const group = data?.groups[index];
    return !group ? '' : group.other ? t.other : groupName(group.group);
  };
  const groupingLabel = { model: t.model, key: t.key, user: t.user };

  return (
    <section className="console-screen" aria-labelledby="usage-title">
      <h2 id="usage-title">{t.usage}</h2>
      <form className="console-filters" aria-label={t.range} onSubmit={apply} noValidate>
        <label htmlFor={`${id}-from`}>{t.from}</label>
        <input id={`${id}-from`} name="from" type="date" defaultValue={query.from} required />
        <label htmlFor={`${id}-to`}>{t.to}</label>
        <input id={`${id}-to`} name="to" type="date" defaultValue={query.to} required />
        <label htmlFor={`${id}-group`}>{t.groupBy}</label>
        <select id={`${id}-group`} name="groupBy" defaultValue={query.groupBy}>
          <option value="model">{t.model}</option>
          <option value="key">{t.key}</option>
          <option value="user">{t.user}</option>
        </select>
        {canPickTenant && (
          <>
            <label htmlFor={`${id}-tenant`}>{t.tenant}</label>
            <select id={`${id}-tenant`} name="tenantId" defaultValue="">
              <option value="">{t.allTenants}</option>
              {tenants.data?.map((tenant) => (
                <option key={tenant.tenantId} value={tenant.tenantId}>
                  {tenant.name}
                </option>
              ))}
            </select>
          </>
        )}
        <button type="submit">{t.apply}</button>
      </form>
      {formError && <p role="alert">{formError}</p>}
      {usage.error && <p role="alert">{errorText(usage.error)}</p>}
      {!report && !usage.error && <p className="muted">{t.loading}</p>}
      {/* The last figures stay while a new range is read: marked busy and said so, never shown as the new range's. */}
      <p role="status" className="console-status">
        {report && usage.isPlaceholderData ? t.loading : ''}
      </p>
      {report && data && (
        <div className="usage-report" aria-busy={usage.isPlaceholderData || undefined}>
          <dl className="usage-totals" aria-label={t.total}>
            <div>
              <dt>{t.cost}</dt>
              <dd>{formats.cost(report.totals.costUsd)}</dd>
            </div>
            <div>
              <dt>{t.totalTokens}</dt>
              <dd>{formats.count(report.totals.totalTokens)}</dd>
            </div>
            <div>
              <dt>{t.requests}</dt>
              <dd>{formats.count(report.totals.requests)}</dd>
            </div>
            <div>
              <dt>{t.errors}</dt>
              <dd>{formats.count(report.totals.errors)}</dd>
            </div>
          </dl>
          {report.days.length === 0 ? (
            <p className="muted">{t.noUsage}</p>
          ) : (
            <>
              <UsageChart
                title={`${t.spendChart} (${groupingLabel[report.groupBy]})`}
                note={t.chartNote}
                data={data}
                value={(entry) => Number(entry.costUsd)}
                formatValue={formats.axisCost}
                formatDay={formats.day}
                groupLabel={chartLabel}
              />
              <UsageChart
                title={`${t.tokensChart} (${groupingLabel[report.groupBy]})`}
                note={t.chartNote}
                data={data}
                value={(entry) => entry.totalTokens}
                formatValue={formats.compact}
                formatDay={formats.day}
                groupLabel={chartLabel}
              />
            </>
          )}
          <h3 id="usage-groups">{t.byGroup}</h3>
          <FiguresTable
            caption={t.byGroup}
            t={t}
            formats={formats}
            first={groupingLabel[report.groupBy]}
            rows={[
              ...report.groups.map((row) => ({ key: String(row.group), head: groupName(row.group), row })),
              { key: '\u0000total', head: t.total, row: report.totals },
            ]}
          />
          <h3 id="usage-days">{t.byDay}</h3>
          <FiguresTable
            caption={t.byDay}
            t={t}
            formats={formats}
            first={t.day}
            second={groupingLabel[report.groupBy]}
            rows={report.days.map((row) => ({
              key: `${row.day}/${String(row.group)}`,
              head: row.day,
              second: groupName(row.group),
              row,
            }))}
          />
        </div>
      )}
    </section>
  );
}

function FiguresTable({
  caption,
  t,
  formats,
  first,
  second,
  rows,
}: {
  caption: string;
  t: (typeof usageText)['en'];
  formats: { cost(text: string): string; count(value: number): string };
  first: string;
  second?: string;
  rows: { key: string; head: string; second?: string; row: UsageFigures }[];
}) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={caption}>
      <table className="console-table">
        <thead>
          <tr>
            <th scope="col">{first}</th>
            {second !== undefined && <th scope="col">{second}</th>}
            <th scope="col">{t.cost}</th>
            <th scope="col">{t.totalTokens}</th>
            <th scope="col">{t.inputTokens}</th>
            <th scope="col">{t.outputTokens}</th>
            <th scope="col">{t.cachedTokens}</th>
            <th scope="col">{t.requests}</th>
            <th scope="col">{t.errors}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ key, head, second: other, row }) => (
            <tr key={key}>
              <th scope="row">{head}</th>
              {second !== undefined && <td>{other}</td>}
              <td className="number">{formats.cost(row.costUsd)}</td>
              <td className="number">{formats.count(row.totalTokens)}</td>
              <td className="number">{formats.count(row.inputTokens)}</td>
              <td className="number">{formats.count(row.outputTokens)}</td>
              <td className="number">{formats.count(row.cachedTokens)}</td>
              <td className="number">{formats.count(row.requests)}</td>
              <td className="number">{formats.count(row.errors)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
