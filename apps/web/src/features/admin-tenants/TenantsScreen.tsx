import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { errorText } from '../../lib/api';
import { useAuth } from '../../lib/auth/auth-context';
import { useFormats } from '../../lib/i18n/format';
import { useLocale } from '../../lib/i18n/locale';
import { useMessages } from '../../lib/i18n/messages';
import { ConfirmDialog } from '../../lib/ui/ConfirmDialog';
import {
  type IdentityProviderReport,
  TENANTS_KEY,
  type Tenant,
  createTenant,
  deleteIdentityProvider,
  deleteTenant,
  getIdentityProvider,
  listTenants,
  openTestSignIn,
  putIdentityProvider,
  testIdentityProvider,
  updateTenant,
} from './api';
import { tenantsText } from './messages';

type Texts = ReturnType<typeof useMessages<typeof tenantsText.en>>;

const field = (form: FormData, name: string) => String(form.get(name) ?? '').trim();
const words = (text: string) => text.split(/[\s,]+/).filter((word) => word !== '');

type Pending = { kind: 'delete-tenant'; tenant: Tenant } | { kind: 'delete-idp'; tenant: Tenant };

/**
 * A heading that takes the focus when it appears and again whenever `key` changes (not at every render, which
 * would pull the focus away from the control a keyboard user is on).
 */
function useFocusedHeading(key: unknown) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [key]);
  return heading;
}

/**
 * After a confirmed deletion, once the refreshed list is on the page: the button the dialog gave the focus back to
 * (the row's Delete, the provider's Remove) went away with it, so the focus goes to `target` rather than nowhere.
 */
function useFocusAfterRemoval(target: { current: HTMLElement | null }, data: unknown) {
  const removed = useRef(false);
  useEffect(() => {
    if (!removed.current) return;
    const active = document.activeElement;
    if (!active || active === document.body || !active.isConnected) {
      removed.current = false;
      target.current?.focus();
    }
  }, [target, data]);
  return removed;
}

// A button busy with its request is aria-disabled, not disabled: a disabled button drops the keyboard focus.

/** Tenants and their identity providers (platform:manage): list, create, change, delete, test a provider. */
export function TenantsScreen() {
  const auth = useAuth();
  const t = useMessages(tenantsText);
  const queries = useQueryClient();
  const [search, setSearch] = useState<string | undefined>();
  const [page, setPage] = useState(1);
  const [selectedId, setSelectedId] = useState<string | undefined>();
  const [pending, setPending] = useState<Pending | undefined>();
  const [done, setDone] = useState('');
  const id = useId();
  const title = useRef<HTMLHeadingElement>(null);

  const list = useQuery({
    queryKey: [...TENANTS_KEY, 'list', search, page],
    queryFn: async () => listTenants(await auth.accessToken(), search, page),
    placeholderData: keepPreviousData,
  });
  const removed = useFocusAfterRemoval(title, list.data);
  const create = useMutation({
    mutationFn: async (input: Parameters<typeof createTenant>[1]) => createTenant(await auth.accessToken(), input),
    onSuccess: (tenant) => {
      setDone(t.created(tenant.name));
      void queries.invalidateQueries({ queryKey: TENANTS_KEY });
    },
  });
  const remove = useMutation({
    mutationFn: async (action: Pending) =>
      action.kind === 'delete-tenant'
        ? deleteTenant(await auth.accessToken(), action.tenant.tenantId)
        : deleteIdentityProvider(await auth.accessToken(), action.tenant.tenantId),
    onSuccess: (_result, action) => {
      setDone(action.kind === 'delete-tenant' ? t.deleted(action.tenant.name) : t.idpRemoved(action.tenant.name));
      if (action.kind === 'delete-tenant' && selectedId === action.tenant.tenantId) setSelectedId(undefined);
      setPending(undefined);
      removed.current = true;
      void queries.invalidateQueries({ queryKey: TENANTS_KEY });
    },
  });

  const onCreate = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (create.isPending) return;
    const form = event.currentTarget;
    const data = new FormData(form);
    create.mutate(
      {
        name: field(data, 'name'),
        type: field(data, 'type') === 'saas' ? 'saas' : 'enterprise',
        endpoint: field(data, 'endpoint'),
        enabled: data.get('enabled') === 'on',
      },
      { onSuccess: () => form.reset() },
    );
  };

  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / list.data.limit)) : 1;
  const selected = list.data?.tenants.find((tenant) => tenant.tenantId === selectedId);

  return (
    <section className="console-screen" aria-labelledby="tenants-title">
      <h2 id="tenants-title" tabIndex={-1} ref={title}>
        {t.tenants}
      </h2>
      <p role="status" className="console-status">
        {done}
      </p>

      <form
        className="console-filters"
        role="search"
        aria-label={t.searchTenants}
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(field(new FormData(event.currentTarget), 'search') || undefined);
          setPage(1);
        }}
      >
        <label htmlFor={`${id}-search`}>{t.search}</label>
        <input id={`${id}-search`} name="search" type="search" maxLength={100} placeholder={t.searchHint} />
        <button type="submit">{t.apply}</button>
      </form>

      {list.error && <p role="alert">{errorText(list.error)}</p>}
      {list.data && list.data.tenants.length === 0 && <p className="muted">{t.noTenants}</p>}
      {list.data && list.data.tenants.length > 0 && (
        <TenantTable
          t={t}
          tenants={list.data.tenants}
          onManage={(tenant) => setSelectedId(tenant.tenantId)}
          onDelete={(tenant) => setPending({ kind: 'delete-tenant', tenant })}
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

      {selected && (
        <TenantDetail
          key={selected.tenantId}
          t={t}
          tenant={selected}
          onDone={setDone}
          onClose={() => setSelectedId(undefined)}
          onRemoveIdp={() => setPending({ kind: 'delete-idp', tenant: selected })}
        />
      )}

      <section aria-labelledby={`${id}-create-title`}>
        <h3 id={`${id}-create-title`}>{t.createTenant}</h3>
        <form className="console-form" onSubmit={onCreate}>
          <label htmlFor={`${id}-name`}>{t.name}</label>
          <input id={`${id}-name`} name="name" required maxLength={100} />
          <label htmlFor={`${id}-type`}>{t.type}</label>
          <select id={`${id}-type`} name="type" defaultValue="enterprise">
            <option value="enterprise">{t.enterprise}</option>
            <option value="saas">{t.saas}</option>
          </select>
          <label htmlFor={`${id}-endpoint`}>{t.endpoint}</label>
          <input id={`${id}-endpoint`} name="endpoint" required maxLength={2000} placeholder="https://" />
          <label className="check">
            <input name="enabled" type="checkbox" defaultChecked />
            {t.enabled}
          </label>
          <button type="submit" aria-disabled={create.isPending}>
            {t.create}
          </button>
          {create.error && <p role="alert">{errorText(create.error)}</p>}
        </form>
      </section>

      <ConfirmDialog
        open={pending !== undefined}
        title={pending?.kind === 'delete-idp' ? t.removeIdp : t.deleteTenant}
        confirmLabel={pending?.kind === 'delete-idp' ? t.removeIdp : t.delete}
        cancelLabel={t.cancel}
        destructive
        busy={remove.isPending}
        onConfirm={() => pending && remove.mutate(pending)}
        onCancel={() => {
          setPending(undefined);
          remove.reset();
        }}
      >
        {pending && (
          <p>
            {pending.kind === 'delete-idp'
              ? t.confirmRemoveIdp(pending.tenant.name)
              : t.confirmDelete(pending.tenant.name)}
          </p>
        )}
        {remove.error && <p role="alert">{errorText(remove.error)}</p>}
      </ConfirmDialog>
    </section>
  );
}

function TenantTable({
  t,
  tenants,
  onManage,
  onDelete,
}: {
  t: Texts;
  tenants: Tenant[];
  onManage(tenant: Tenant): void;
  onDelete(tenant: Tenant): void;
}) {
  const formats = useFormats();
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={t.tenants}>
      <table className="console-table">
        <thead>
          <tr>
            <th scope="col">{t.name}</th>
            <th scope="col">{t.type}</th>
            <th scope="col">{t.endpoint}</th>
            <th scope="col">{t.state}</th>
            <th scope="col">{t.users}</th>
            <th scope="col">{t.clients}</th>
            <th scope="col">{t.identityProvider}</th>
            <th scope="col">{t.createdAt}</th>
            <th scope="col">{t.actions}</th>
          </tr>
        </thead>
        <tbody>
          {tenants.map((tenant) => (
            <tr key={tenant.tenantId} data-tenant={tenant.name}>
              <th scope="row">{tenant.name}</th>
              <td>{tenant.type === 'saas' ? t.saas : t.enterprise}</td>
              <td>{tenant.endpoint}</td>
              <td>{tenant.enabled ? t.enabled : t.disabled}</td>
              <td>{tenant.userCount}</td>
              <td>{tenant.clientCount}</td>
              <td>{tenant.hasIdentityProvider ? t.yes : t.no}</td>
              <td>
                <time dateTime={tenant.createdAt}>{formats.dateTime(tenant.createdAt)}</time>
              </td>
              <td>
                <div className="row-actions" role="group" aria-label={t.actionsFor(tenant.name)}>
                  <button type="button" data-action="manage" onClick={() => onManage(tenant)}>
                    {t.manage}
                  </button>
                  <button type="button" data-action="delete" className="destructive" onClick={() => onDelete(tenant)}>
                    {t.delete}
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One tenant's endpoint and state, and its identity provider (enterprise tenants only). */
function TenantDetail({
  t,
  tenant,
  onDone,
  onClose,
  onRemoveIdp,
}: {
  t: Texts;
  tenant: Tenant;
  onDone(text: string): void;
  onClose(): void;
  onRemoveIdp(): void;
}) {
  const auth = useAuth();
  const queries = useQueryClient();
  const id = useId();
  const heading = useFocusedHeading(tenant.tenantId);
  const update = useMutation({
    mutationFn: async (change: { endpoint?: string; enabled?: boolean }) =>
      updateTenant(await auth.accessToken(), tenant.tenantId, change),
    onSuccess: (saved) => {
      onDone(t.saved(saved.name));
      void queries.invalidateQueries({ queryKey: TENANTS_KEY });
    },
  });
  const onSave = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (update.isPending) return;
    const data = new FormData(event.currentTarget);
    const endpoint = field(data, 'endpoint');
    const enabled = data.get('enabled') === 'on';
    update.mutate({
      ...(endpoint !== tenant.endpoint ? { endpoint } : {}),
      ...(enabled !== tenant.enabled ? { enabled } : {}),
    });
  };
  return (
    <section className="console-detail" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} tabIndex={-1} ref={heading}>
        {t.tenantTitle(tenant.name)}
      </h3>
      <form className="console-form" onSubmit={onSave} aria-label={t.editTenant}>
        <label htmlFor={`${id}-endpoint`}>{t.endpoint}</label>
        <input id={`${id}-endpoint`} name="endpoint" required maxLength={2000} defaultValue={tenant.endpoint} />
        <label className="check">
          <input name="enabled" type="checkbox" defaultChecked={tenant.enabled} />
          {t.enabled}
        </label>
        <button type="submit" aria-disabled={update.isPending}>
          {t.save}
        </button>
        <button type="button" onClick={onClose}>
          {t.close}
        </button>
        {update.error && <p role="alert">{errorText(update.error)}</p>}
      </form>
      {tenant.type === 'enterprise' ? (
        <IdentityProviderPanel t={t} tenant={tenant} onDone={onDone} onRemove={onRemoveIdp} />
      ) : (
        <p className="muted">{t.saasNoIdp}</p>
      )}
    </section>
  );
}

function IdentityProviderPanel({
  t,
  tenant,
  onDone,
  onRemove,
}: {
  t: Texts;
  tenant: Tenant;
  onDone(text: string): void;
  onRemove(): void;
}) {
  const auth = useAuth();
  const queries = useQueryClient();
  const { locale } = useLocale();
  const id = useId();
  const [report, setReport] = useState<IdentityProviderReport | undefined>();
  const [popupBlocked, setPopupBlocked] = useState(false);
  const key = [...TENANTS_KEY, 'idp', tenant.tenantId, tenant.hasIdentityProvider];
  const idp = useQuery({
    queryKey: key,
    queryFn: async () => getIdentityProvider(await auth.accessToken(), tenant.tenantId),
  });
  const save = useMutation({
    mutationFn: async (input: Parameters<typeof putIdentityProvider>[2]) =>
      putIdentityProvider(await auth.accessToken(), tenant.tenantId, input),
    onSuccess: () => {
      onDone(t.idpSaved(tenant.name));
      setReport(undefined);
      void queries.invalidateQueries({ queryKey: TENANTS_KEY });
    },
  });
  const test = useMutation({
    mutationFn: async () => testIdentityProvider(await auth.accessToken(), tenant.tenantId),
    onSuccess: setReport,
  });

  const onSave = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (save.isPending) return;
    const form = event.currentTarget;
    const data = new FormData(form);
    const secret = String(data.get('clientSecret') ?? '');
    const scopes = words(field(data, 'scopes'));
    save.mutate(
      {
        issuer: field(data, 'issuer'),
        clientId: field(data, 'clientId'),
        ...(secret !== '' ? { clientSecret: secret } : {}),
        ...(scopes.length > 0 ? { scopes } : {}),
        domains: words(field(data, 'domains')),
      },
      // The secret is write-only: it leaves the form once sent.
      { onSuccess: () => ((form.elements.namedItem('clientSecret') as HTMLInputElement).value = '') },
    );
  };

  if (idp.isPending) return <p className="muted">{t.loading}</p>;
  if (idp.error) return <p role="alert">{errorText(idp.error)}</p>;
  const current = idp.data;
  return (
    <section aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>{t.identityProvider}</h4>
      {current ? (
        <p>
          {t.redirectUri}: <code>{current.redirectUri}</code>
        </p>
      ) : (
        <p className="muted">{t.noIdp}</p>
      )}
      <form className="console-form" onSubmit={onSave} aria-label={t.idpForm}>
        <label htmlFor={`${id}-issuer`}>{t.issuer}</label>
        <input
          id={`${id}-issuer`}
          name="issuer"
          required
          maxLength={2000}
          defaultValue={current?.issuer}
          placeholder="https://"
        />
        <label htmlFor={`${id}-client`}>{t.clientId}</label>
        <input id={`${id}-client`} name="clientId" required maxLength={256} defaultValue={current?.clientId} />
        <label htmlFor={`${id}-secret`}>{t.clientSecret}</label>
        <input
          id={`${id}-secret`}
          name="clientSecret"
          type="password"
          autoComplete="off"
          maxLength={1024}
          required={!current}
          aria-describedby={`${id}-secret-hint`}
        />
        <p id={`${id}-secret-hint`} className="muted">
          {current ? t.secretKept : t.secretRequired}
        </p>
        <label htmlFor={`${id}-scopes`}>{t.scopes}</label>
        <input id={`${id}-scopes`} name="scopes" defaultValue={current?.scopes.join(' ') ?? 'openid profile email'} />
        <label htmlFor={`${id}-domains`}>{t.domains}</label>
        <input
          id={`${id}-domains`}
          name="domains"
          defaultValue={current?.domains.join(' ')}
          aria-describedby={`${id}-domains-hint`}
        />
        <p id={`${id}-domains-hint`} className="muted">
          {t.domainsHint}
        </p>
        <button type="submit" aria-disabled={save.isPending}>
          {t.saveIdp}
        </button>
        {current && (
          <button type="button" className="destructive" data-action="remove-idp" onClick={onRemove}>
            {t.removeIdp}
          </button>
        )}
        {save.error && <p role="alert">{errorText(save.error)}</p>}
      </form>
      {current && (
        <div className="idp-test">
          <button
            type="button"
            data-action="test-idp"
            aria-disabled={test.isPending}
            onClick={() => !test.isPending && test.mutate()}
          >
            {t.test}
          </button>
          {test.error && <p role="alert">{errorText(test.error)}</p>}
          {report && (
            <IdpReport
              t={t}
              report={report}
              popupBlocked={popupBlocked}
              onSignIn={() => {
                if (!report.signIn) return;
                void openTestSignIn(report.signIn, locale).then((opened) => setPopupBlocked(!opened));
              }}
            />
          )}
        </div>
      )}
    </section>
  );
}

function IdpReport({
  t,
  report,
  popupBlocked,
  onSignIn,
}: {
  t: Texts;
  report: IdentityProviderReport;
  popupBlocked: boolean;
  onSignIn(): void;
}) {
  const formats = useFormats();
  const id = useId();
  const heading = useFocusedHeading(report.checkedAt);
  const rows: [string, string][] = [
    [t.discoveryUrl, report.discoveryUrl],
    [t.issuerMatches, report.issuerMatches === null ? t.unknown : report.issuerMatches ? t.yes : t.no],
    [t.authorizationEndpoint, report.discovered?.authorizationEndpoint ?? ''],
    [t.tokenEndpoint, report.discovered?.tokenEndpoint ?? ''],
    [t.userinfoEndpoint, report.discovered?.userinfoEndpoint ?? ''],
    [t.jwksUri, report.discovered?.jwksUri ?? ''],
    [t.algorithms, (report.discovered?.acceptedAlgorithms ?? []).join(', ')],
    [t.pkce, (report.discovered?.codeChallengeMethods ?? []).join(', ')],
  ];
  return (
    <section className="idp-report" aria-labelledby={`${id}-title`} data-ok={report.ok}>
      <h5 id={`${id}-title`} tabIndex={-1} ref={heading}>
        {report.ok ? t.reportOk : t.reportProblems(report.problems.length)}
      </h5>
      <p className="muted">
        {t.checkedAt} <time dateTime={report.checkedAt}>{formats.dateTime(report.checkedAt)}</time>
      </p>
      <dl>
        {rows.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {report.problems.length > 0 && (
        <ul className="idp-problems" aria-label={t.problems}>
          {report.problems.map((problem) => (
            <li key={problem.code} data-code={problem.code}>
              <code>{problem.code}</code> {problem.message}
            </li>
          ))}
        </ul>
      )}
      {report.keys && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label={t.keys}>
          <table className="console-table">
            <thead>
              <tr>
                <th scope="col">{t.kid}</th>
                <th scope="col">{t.keyType}</th>
                <th scope="col">{t.algorithm}</th>
                <th scope="col">{t.usable}</th>
              </tr>
            </thead>
            <tbody>
              {report.keys.map((key, index) => (
                <tr key={key.kid ?? index}>
                  <th scope="row">{key.kid ?? ''}</th>
                  <td>{key.kty}</td>
                  <td>{key.alg ?? ''}</td>
                  <td>{key.usable ? t.yes : t.no}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {report.signIn ? (
        <>
          <p className="muted">{t.testSignInHint}</p>
          <button type="button" data-action="test-sign-in" onClick={onSignIn}>
            {t.testSignIn}
          </button>
          {popupBlocked && <p role="alert">{t.popupBlocked}</p>}
        </>
      ) : (
        <p className="muted">{t.noSignIn}</p>
      )}
    </section>
  );
}
