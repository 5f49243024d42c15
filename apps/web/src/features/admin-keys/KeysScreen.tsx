import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { errorText } from '../../lib/api';
import { useAuth } from '../../lib/auth/auth-context';
import { useFormats } from '../../lib/i18n/format';
import { useLocale } from '../../lib/i18n/locale';
import { useMessages } from '../../lib/i18n/messages';
import { ConfirmDialog } from '../../lib/ui/ConfirmDialog';
import { ModalDialog } from '../../lib/ui/ModalDialog';
import { SecretDialog } from '../../lib/ui/SecretDialog';
import {
  API_KEYS_KEY,
  type AdminApiKey,
  type ApiKeyFilters,
  type ApiKeyLimits,
  type KeyField,
  type NewApiKey,
  type TenantChoice,
  createApiKey,
  keyFieldOf,
  listApiKeys,
  listTenantChoices,
  revokeApiKey,
  updateApiKey,
} from './api';
import { keysText } from './messages';

type Texts = ReturnType<typeof useMessages<typeof keysText.en>>;

const words = (text: string) => text.split(/[\s,]+/).filter(Boolean);
/** Empty clears; a number is sent as one; anything else as typed, for the API to refuse by its rule. */
function numberOrText(text: string): number | null {
  if (text === '') return null;
  const value = Number(text);
  return (Number.isFinite(value) ? value : text) as number;
}

/** A date field's day as the end of that UTC day (the key works through it). */
const endOfDay = (day: string) => `${day}T23:59:59.999Z`;

function stateLabel(t: Texts, state: AdminApiKey['state']): string {
  return { live: t.stateLive, revoked: t.stateRevoked, expired: t.stateExpired }[state];
}

interface Shown {
  subject: string;
  secret: string;
}

/** Gateway API keys (issue 38): the model gateway's virtual keys, issued, limited and revoked by the operator. */
export function KeysScreen() {
  const auth = useAuth();
  const t = useMessages(keysText);
  const queries = useQueryClient();
  const [filters, setFilters] = useState<ApiKeyFilters>({});
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<AdminApiKey | undefined>();
  const [revoking, setRevoking] = useState<AdminApiKey | undefined>();
  // The key lives here while its dialog is open, and nowhere else (the mutation is reset at once).
  const [shown, setShown] = useState<Shown | undefined>();
  const [done, setDone] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);

  const list = useQuery({
    queryKey: [...API_KEYS_KEY, 'list', filters, page],
    queryFn: async () => listApiKeys(await auth.accessToken(), filters, page),
    placeholderData: keepPreviousData,
  });
  const tenants = useQuery({
    queryKey: ['admin', 'tenant-choices'],
    queryFn: async () => listTenantChoices(await auth.accessToken()),
    staleTime: 60_000,
  });
  const tenantName = (tenantId: string | null) =>
    tenantId === null ? t.operatorKey : (tenants.data?.find((x) => x.tenantId === tenantId)?.name ?? tenantId);
  const refresh = () => queries.invalidateQueries({ queryKey: API_KEYS_KEY });

  const create = useMutation({
    gcTime: 0,
    mutationFn: async (body: NewApiKey) => createApiKey(await auth.accessToken(), body),
    onSuccess: (issued) => {
      create.reset();
      setCreating(false);
      setDone(t.created(issued.name));
      setShown({ subject: issued.name, secret: issued.apiKey });
      void refresh();
    },
  });
  const edit = useMutation({
    mutationFn: async ({ keyId, changes }: { keyId: string; changes: ApiKeyLimits }) =>
      updateApiKey(await auth.accessToken(), keyId, changes),
    onSuccess: (updated) => {
      setEditing(undefined);
      setDone(t.saved(updated.name));
      void refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: async (apiKey: AdminApiKey) => revokeApiKey(await auth.accessToken(), apiKey.keyId),
    onSuccess: (revoked) => {
      setRevoking(undefined);
      setDone(t.revoked(revoked.name));
      // A revoked key's row offers no action: the focus goes to the screen's heading, not the page's body.
      void refresh().then(() => heading.current?.focus());
    },
  });

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    setFilters({
      search: text('search'),
      state: text('state') as ApiKeyFilters['state'],
      tenantId: text('tenantId'),
    });
    setPage(1);
  };
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / list.data.limit)) : 1;

  return (
    <section className="console-screen" aria-labelledby="keys-title">
      <h2 id="keys-title" ref={heading} tabIndex={-1}>
        {t.keys}
      </h2>
      <p role="status" className="console-status">
        {done}
      </p>
      <p>
        <button type="button" data-action="new-key" onClick={() => setCreating(true)}>
          {t.newKey}
        </button>
      </p>

      <section aria-labelledby="all-keys-title">
        <h3 id="all-keys-title">{t.allKeys}</h3>
        <FiltersForm t={t} tenants={tenants.data} onSubmit={apply} />
        {list.error && <p role="alert">{list.error.message}</p>}
        {list.data && list.data.apiKeys.length === 0 && <p className="muted">{t.noKeys}</p>}
        {list.data && list.data.apiKeys.length > 0 && (
          <KeyTable
            apiKeys={list.data.apiKeys}
            t={t}
            tenantName={tenantName}
            firstNumber={(page - 1) * list.data.limit + 1}
            onEdit={(apiKey) => {
              edit.reset();
              setEditing(apiKey);
            }}
            onRevoke={(apiKey) => {
              revoke.reset();
              setRevoking(apiKey);
            }}
          />
        )}
        {list.data && (
          <nav className="pager" aria-label={t.pages}>
            <button type="button" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
              {t.previous}
            </button>
            <span aria-live="polite">{t.pageOf(page, pages, list.data.total)}</span>
            <button type="button" disabled={!list.data.hasMore} onClick={() => setPage((p) => p + 1)}>
              {t.next}
            </button>
          </nav>
        )}
      </section>

      <ModalDialog
        open={creating}
        title={t.newKey}
        onClose={() => {
          setCreating(false);
          create.reset();
        }}
      >
        <KeyForm
          t={t}
          tenants={tenants.data}
          error={create.error}
          busy={create.isPending}
          submitLabel={t.create}
          onCancel={() => {
            setCreating(false);
            create.reset();
          }}
          onSubmit={(values) => {
            const body: NewApiKey = { name: values.name };
            if (values.tenantId) body.tenantId = values.tenantId;
            if (values.models.length > 0) body.models = values.models;
            if (values.networks.length > 0) body.networks = values.networks;
            if (values.rpm !== null) body.rpm = values.rpm;
            if (values.tpm !== null) body.tpm = values.tpm;
            if (values.dailyBudgetUsd !== null) body.dailyBudgetUsd = values.dailyBudgetUsd;
            if (values.expiresOn) body.expiresAt = endOfDay(values.expiresOn);
            create.mutate(body);
          }}
        />
      </ModalDialog>

      <ModalDialog
        open={editing !== undefined}
        title={editing ? t.editTitle(editing.name) : ''}
        onClose={() => {
          setEditing(undefined);
          edit.reset();
        }}
      >
        {editing && (
          <KeyForm
            t={t}
            editing={editing}
            error={edit.error}
            busy={edit.isPending}
            submitLabel={t.save}
            onCancel={() => {
              setEditing(undefined);
              edit.reset();
            }}
            onSubmit={(values) => {
              const changes: ApiKeyLimits = {
                name: values.name,
                models: values.models.length > 0 ? values.models : null,
                networks: values.networks.length > 0 ? values.networks : null,
                rpm: values.rpm,
                tpm: values.tpm,
                dailyBudgetUsd: values.dailyBudgetUsd,
              };
              // The stored instant is kept unless the day was changed or cleared.
              if (values.expiresOn !== (editing.expiresAt?.slice(0, 10) ?? ''))
                changes.expiresAt = values.expiresOn ? endOfDay(values.expiresOn) : null;
              edit.mutate({ keyId: editing.keyId, changes });
            }}
          />
        )}
      </ModalDialog>

      <ConfirmDialog
        open={revoking !== undefined}
        title={t.revoke}
        confirmLabel={t.revoke}
        cancelLabel={t.cancel}
        destructive
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={() => {
          setRevoking(undefined);
          revoke.reset();
        }}
      >
        {revoking && <p>{t.confirmRevoke(revoking.name, revoking.keyHint)}</p>}
        {revoke.error && <p role="alert">{errorText(revoke.error)}</p>}
      </ConfirmDialog>

      <SecretDialog
        secret={shown?.secret}
        subject={shown ? t.keyFor(shown.subject) : ''}
        texts={{
          title: t.secretTitle,
          label: t.secretLabel,
          warning: t.secretWarning,
          copy: t.copy,
          copied: t.copied,
          copyFailed: t.copyFailed,
          close: t.close,
        }}
        onClose={() => setShown(undefined)}
      />
    </section>
  );
}

function FiltersForm({
  t,
  tenants,
  onSubmit,
}: {
  t: Texts;
  tenants: TenantChoice[] | undefined;
  onSubmit(event: FormEvent<HTMLFormElement>): void;
}) {
  const id = useId();
  return (
    <form className="console-filters" role="search" aria-label={t.filters} onSubmit={onSubmit}>
      <label htmlFor={`${id}-search`}>{t.search}</label>
      <input id={`${id}-search`} name="search" type="search" maxLength={100} placeholder={t.searchHint} />
      <label htmlFor={`${id}-state`}>{t.state}</label>
      <select id={`${id}-state`} name="state" defaultValue="">
        <option value="">{t.anyState}</option>
        <option value="live">{t.stateLive}</option>
        <option value="expired">{t.stateExpired}</option>
        <option value="revoked">{t.stateRevoked}</option>
      </select>
      <label htmlFor={`${id}-tenant`}>{t.tenant}</label>
      <select id={`${id}-tenant`} name="tenantId" defaultValue="">
        <option value="">{t.anyTenant}</option>
        {tenants?.map((tenant) => (
          <option key={tenant.tenantId} value={tenant.tenantId}>
            {tenant.name}
          </option>
        ))}
      </select>
      <button type="submit">{t.apply}</button>
    </form>
  );
}

interface FormValues {
  name: string;
  tenantId: string;
  models: string[];
  networks: string[];
  rpm: number | null;
  tpm: number | null;
  dailyBudgetUsd: number | null;
  /** `YYYY-MM-DD`, or empty: never. */
  expiresOn: string;
}

/** The create form, or (with `editing`) the change of a key's name, limits, models, networks and expiry. */
function KeyForm({
  t,
  tenants,
  editing,
  error,
  busy,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  t: Texts;
  tenants?: TenantChoice[];
  editing?: AdminApiKey;
  error: Error | null;
  busy: boolean;
  submitLabel: string;
  onSubmit(values: FormValues): void;
  onCancel(): void;
}) {
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  // The edit form has no tenant: a refusal about it is shown above the buttons, not lost.
  const named = keyFieldOf(error);
  const field = named === 'tenantId' && editing ? undefined : named;
  // A refusal moves the focus to the field it is about, whose description reads it out.
  useEffect(() => {
    if (!error) return;
    form.current?.querySelector<HTMLElement>(field ? `[data-field="${field}"]` : '[role="alert"]')?.focus();
  }, [error, field]);

  const describe = (name: KeyField, hint = false) => ({
    id: `${id}-${name}`,
    name,
    'data-field': name,
    'aria-invalid': field === name ? true : undefined,
    'aria-describedby':
      [hint && `${id}-${name}-hint`, field === name && `${id}-${name}-error`].filter(Boolean).join(' ') || undefined,
  });
  const labelled = (name: KeyField, label: string, input: ReactNode, hint?: string) => (
    <div className="form-field">
      <label htmlFor={`${id}-${name}`}>{label}</label>
      {input}
      {hint && (
        <p id={`${id}-${name}-hint`} className="field-hint">
          {hint}
        </p>
      )}
      {field === name && error && (
        <p id={`${id}-${name}-error`} className="field-error">
          {errorText(error)}
        </p>
      )}
    </div>
  );

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    onSubmit({
      name: text('name'),
      tenantId: text('tenantId'),
      models: words(text('models')),
      networks: words(text('networks')),
      rpm: numberOrText(text('rpm')),
      tpm: numberOrText(text('tpm')),
      dailyBudgetUsd: numberOrText(text('dailyBudgetUsd')),
      expiresOn: text('expiresAt'),
    });
  };
  const number = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value));

  return (
    <form ref={form} className="console-form" noValidate onSubmit={submit}>
      {labelled('name', t.name, <input autoComplete="off" defaultValue={editing?.name} {...describe('name')} />)}
      {!editing &&
        labelled(
          'tenantId',
          t.tenant,
          <select defaultValue="" {...describe('tenantId')}>
            <option value="">{t.operatorKey}</option>
            {tenants?.map((tenant) => (
              <option key={tenant.tenantId} value={tenant.tenantId}>
                {tenant.name}
              </option>
            ))}
          </select>,
        )}
      {labelled(
        'models',
        t.models,
        <input spellCheck={false} defaultValue={editing?.models?.join(' ')} {...describe('models', true)} />,
        t.modelsHint,
      )}
      {labelled(
        'rpm',
        t.rpm,
        <input inputMode="numeric" defaultValue={number(editing?.rpm)} {...describe('rpm', true)} />,
        t.noLimitHint,
      )}
      {labelled(
        'tpm',
        t.tpm,
        <input inputMode="numeric" defaultValue={number(editing?.tpm)} {...describe('tpm', true)} />,
        t.noLimitHint,
      )}
      {labelled(
        'dailyBudgetUsd',
        t.dailyBudget,
        <input
          inputMode="decimal"
          defaultValue={number(editing?.dailyBudgetUsd)}
          {...describe('dailyBudgetUsd', true)}
        />,
        t.dailyBudgetHint,
      )}
      {labelled(
        'networks',
        t.networks,
        <input spellCheck={false} defaultValue={editing?.networks?.join(' ')} {...describe('networks', true)} />,
        t.networksHint,
      )}
      {labelled(
        'expiresAt',
        t.expiresOn,
        <input type="date" defaultValue={editing?.expiresAt?.slice(0, 10) ?? ''} {...describe('expiresAt', true)} />,
        t.expiresHint,
      )}
      {error && !field && (
        <p role="alert" tabIndex={-1}>
          {errorText(error)}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onCancel}>
          {t.cancel}
        </button>
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

function KeyTable({
  apiKeys,
  t,
  tenantName,
  firstNumber,
  onEdit,
  onRevoke,
}: {
  apiKeys: AdminApiKey[];
  t: Texts;
  tenantName(tenantId: string | null): string;
  firstNumber: number;
  onEdit(apiKey: AdminApiKey): void;
  onRevoke(apiKey: AdminApiKey): void;
}) {
  const formats = useFormats();
  const { locale } = useLocale();
  const dollars = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', maximumFractionDigits: 4 });
  const limit = (value: number | null) => (value === null ? t.noLimit : value.toLocaleString(locale));
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={t.allKeys}>
      <table className="console-table">
        <thead>
          <tr>
            <th scope="col">{t.number}</th>
            <th scope="col">{t.name}</th>
            <th scope="col">{t.keyHint}</th>
            <th scope="col">{t.state}</th>
            <th scope="col">{t.tenant}</th>
            <th scope="col">{t.models}</th>
            <th scope="col">{t.rpm}</th>
            <th scope="col">{t.tpm}</th>
            <th scope="col">{t.dailyBudget}</th>
            <th scope="col">{t.networks}</th>
            <th scope="col">{t.createdAt}</th>
            <th scope="col">{t.expires}</th>
            <th scope="col">{t.actions}</th>
          </tr>
        </thead>
        <tbody>
          {apiKeys.map((apiKey, index) => (
            <tr key={apiKey.keyId} data-key-id={apiKey.keyId}>
              <td>{(firstNumber + index).toLocaleString(locale)}</td>
              <th scope="row">{apiKey.name}</th>
              <td>
                <code>{apiKey.keyHint}</code>
              </td>
              <td>{stateLabel(t, apiKey.state)}</td>
              <td>{tenantName(apiKey.tenantId)}</td>
              <td>{apiKey.models?.join(' ') ?? t.everyModel}</td>
              <td>{limit(apiKey.rpm)}</td>
              <td>{limit(apiKey.tpm)}</td>
              <td>{apiKey.dailyBudgetUsd === null ? t.noLimit : dollars.format(apiKey.dailyBudgetUsd)}</td>
              <td>{apiKey.networks?.join(' ') ?? t.anyNetwork}</td>
              <td>
                <time dateTime={apiKey.createdAt}>{formats.dateTime(apiKey.createdAt)}</time>
              </td>
              <td>
                {apiKey.expiresAt ? (
                  <time dateTime={apiKey.expiresAt}>{formats.dateTime(apiKey.expiresAt)}</time>
                ) : (
                  t.never
                )}
              </td>
              <td>
                {apiKey.state !== 'revoked' && (
                  <div className="row-actions" role="group" aria-label={t.actionsFor(apiKey.name)}>
                    <button type="button" data-action="edit" onClick={() => onEdit(apiKey)}>
                      {t.edit}
                    </button>
                    <button type="button" data-action="revoke" className="destructive" onClick={() => onRevoke(apiKey)}>
                      {t.revoke}
                    </button>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
