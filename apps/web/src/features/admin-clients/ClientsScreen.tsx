import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { errorText } from '../../lib/api';
import { useAuth } from '../../lib/auth/auth-context';
import { useFormats } from '../../lib/i18n/format';
import { useLocale } from '../../lib/i18n/locale';
import { useMessages } from '../../lib/i18n/messages';
import { ConfirmDialog } from '../../lib/ui/ConfirmDialog';
import { ModalDialog } from '../../lib/ui/ModalDialog';
import { SecretDialog } from '../../lib/ui/SecretDialog';
import {
  type AdminClient,
  CLIENTS_KEY,
  type ClientChanges,
  type ClientField,
  type ClientFilters,
  GRANT_TYPES,
  MANAGEMENT_SCOPES,
  type NewClient,
  type TenantChoice,
  clientFieldOf,
  createClient,
  deleteClient,
  listClients,
  listTenantChoices,
  rotateClientSecret,
  updateClient,
} from './api';
import { clientsText } from './messages';

type Texts = ReturnType<typeof useMessages<typeof clientsText.en>>;
type RowAction = 'edit' | 'rotate' | 'disable' | 'enable' | 'delete';
type ConfirmedAction = Exclude<RowAction, 'edit'>;

const OPERATOR_CHOICE = '*operator';
/** The fields the edit form has: a refusal about another one is shown above its buttons, not lost. */
const EDITABLE: readonly ClientField[] = ['name', 'redirectUris', 'scopes'];

/** What a row offers: a client that registered itself only stops, starts or goes; the protected one never stops. */
function actionsFor(client: AdminClient): RowAction[] {
  const actions: RowAction[] = [];
  if (client.registration === 'operator') actions.push('edit');
  if (client.registration === 'operator' && !client.public) actions.push('rotate');
  if (!client.protected) actions.push(client.enabled ? 'disable' : 'enable', 'delete');
  return actions;
}

function actionLabel(t: Texts, action: RowAction): string {
  return { edit: t.edit, rotate: t.rotate, disable: t.disable, enable: t.enable, delete: t.delete }[action];
}

function confirmText(t: Texts, action: ConfirmedAction, clientId: string): string {
  return {
    rotate: t.confirmRotate(clientId),
    disable: t.confirmDisable(clientId),
    enable: t.confirmEnable(clientId),
    delete: t.confirmDelete(clientId),
  }[action];
}

function kindOf(t: Texts, client: AdminClient): string {
  if (client.operator) return t.kindOperator;
  if (client.registration !== 'operator') return t.kindRegistered;
  if (client.public) return t.kindPublic;
  return client.grantTypes.includes('authorization_code') ? t.kindApplication : t.kindService;
}

const words = (text: string) => text.split(/[\s,]+/).filter(Boolean);
interface Shown {
  subject: string;
  secret: string;
}

/** Clients (issue 38): every client of the provider, made, changed, stopped and removed by the platform operator. */
export function ClientsScreen() {
  const auth = useAuth();
  const t = useMessages(clientsText);
  const queries = useQueryClient();
  const [filters, setFilters] = useState<ClientFilters>({});
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<AdminClient | undefined>();
  const [pending, setPending] = useState<{ client: AdminClient; action: ConfirmedAction } | undefined>();
  // The secret lives here while its dialog is open, and nowhere else (the mutations are reset at once).
  const [shown, setShown] = useState<Shown | undefined>();
  const [done, setDone] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);

  const list = useQuery({
    queryKey: [...CLIENTS_KEY, 'list', filters, page],
    queryFn: async () => listClients(await auth.accessToken(), filters, page),
    placeholderData: keepPreviousData,
  });
  const tenants = useQuery({
    queryKey: ['admin', 'tenant-choices'],
    queryFn: async () => listTenantChoices(await auth.accessToken()),
    staleTime: 60_000,
  });
  const refresh = () => queries.invalidateQueries({ queryKey: CLIENTS_KEY });

  const create = useMutation({
    gcTime: 0,
    mutationFn: async (body: NewClient) => createClient(await auth.accessToken(), body),
    onSuccess: (created) => {
      create.reset();
      setCreating(false);
      setDone(t.created(created.clientId));
      if (created.clientSecret !== undefined) setShown({ subject: created.clientId, secret: created.clientSecret });
      else setDone(`${t.created(created.clientId)} ${t.publicCreated}`);
      void refresh();
    },
  });
  const edit = useMutation({
    mutationFn: async ({ clientId, changes }: { clientId: string; changes: ClientChanges }) =>
      updateClient(await auth.accessToken(), clientId, changes),
    onSuccess: (updated) => {
      setEditing(undefined);
      setDone(t.saved(updated.clientId));
      void refresh();
    },
  });
  const act = useMutation({
    gcTime: 0,
    mutationFn: async ({ client, action }: { client: AdminClient; action: ConfirmedAction }) => {
      const token = await auth.accessToken();
      switch (action) {
        case 'rotate':
          return rotateClientSecret(token, client.clientId);
        case 'disable':
        case 'enable':
          return updateClient(token, client.clientId, { enabled: action === 'enable' });
        case 'delete':
          return deleteClient(token, client.clientId);
      }
    },
    onSuccess: (result, { client, action }) => {
      act.reset();
      setPending(undefined);
      setDone(t.actionDone(actionLabel(t, action), client.clientId));
      const secret = (result as { clientSecret?: string } | undefined)?.clientSecret;
      if (action === 'rotate' && secret !== undefined) setShown({ subject: client.clientId, secret });
      void refresh().then(() => {
        // A deleted row takes its button with it: the focus goes to the screen's heading, not the page's body.
        if (action === 'delete') heading.current?.focus();
      });
    },
  });

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    setFilters({ search: text('search'), tenant: text('tenant') });
    setPage(1);
  };
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / list.data.limit)) : 1;

  return (
    <section className="console-screen" aria-labelledby="clients-title">
      <h2 id="clients-title" ref={heading} tabIndex={-1}>
        {t.clients}
      </h2>
      <p role="status" className="console-status">
        {done}
      </p>
      <p>
        <button type="button" data-action="new-client" onClick={() => setCreating(true)}>
          {t.newClient}
        </button>
      </p>

      <section aria-labelledby="all-clients-title">
        <h3 id="all-clients-title">{t.allClients}</h3>
        <FiltersForm t={t} tenants={tenants.data} onSubmit={apply} />
        {list.error && <p role="alert">{list.error.message}</p>}
        {list.data && list.data.clients.length === 0 && <p className="muted">{t.noClients}</p>}
        {list.data && list.data.clients.length > 0 && (
          <ClientTable
            clients={list.data.clients}
            t={t}
            firstNumber={(page - 1) * list.data.limit + 1}
            onAction={(client, action) => {
              act.reset();
              edit.reset();
              if (action === 'edit') setEditing(client);
              else setPending({ client, action });
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
        title={t.newClient}
        onClose={() => {
          setCreating(false);
          create.reset();
        }}
      >
        <ClientForm
          t={t}
          tenants={tenants.data}
          error={create.error}
          busy={create.isPending}
          submitLabel={t.create}
          onCancel={() => {
            setCreating(false);
            create.reset();
          }}
          onSubmit={(form) => {
            const tenant = form.tenant;
            create.mutate({
              clientId: form.clientId,
              name: form.name,
              grantTypes: form.grantTypes,
              redirectUris: form.redirectUris,
              scopes: form.scopes,
              ...(tenant === OPERATOR_CHOICE ? { operator: true } : tenant ? { tenant } : {}),
              ...(form.public ? { public: true } : {}),
              ...(form.allowManagementScopes ? { allowManagementScopes: true } : {}),
            });
          }}
        />
      </ModalDialog>

      <ModalDialog
        open={editing !== undefined}
        title={editing ? t.editTitle(editing.clientId) : ''}
        onClose={() => {
          setEditing(undefined);
          edit.reset();
        }}
      >
        {editing && (
          <ClientForm
            t={t}
            editing={editing}
            error={edit.error}
            busy={edit.isPending}
            submitLabel={t.save}
            onCancel={() => {
              setEditing(undefined);
              edit.reset();
            }}
            onSubmit={(form) =>
              edit.mutate({
                clientId: editing.clientId,
                // The platform's own client keeps the redirects and scopes its start gives it: only its name changes.
                changes: editing.protected
                  ? { name: form.name }
                  : {
                      name: form.name,
                      redirectUris: form.redirectUris,
                      scopes: form.scopes,
                      ...(form.allowManagementScopes ? { allowManagementScopes: true } : {}),
                    },
              })
            }
          />
        )}
      </ModalDialog>

      <ConfirmDialog
        open={pending !== undefined}
        title={pending ? actionLabel(t, pending.action) : ''}
        confirmLabel={pending ? actionLabel(t, pending.action) : ''}
        cancelLabel={t.cancel}
        destructive={pending?.action !== 'enable'}
        busy={act.isPending}
        onConfirm={() => pending && act.mutate(pending)}
        onCancel={() => {
          setPending(undefined);
          act.reset();
        }}
      >
        {pending && <p>{confirmText(t, pending.action, pending.client.clientId)}</p>}
        {act.error && <p role="alert">{errorText(act.error)}</p>}
      </ConfirmDialog>

      <SecretDialog
        secret={shown?.secret}
        subject={shown ? t.secretFor(shown.subject) : ''}
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
      <label htmlFor={`${id}-tenant`}>{t.tenant}</label>
      <select id={`${id}-tenant`} name="tenant" defaultValue="">
        <option value="">{t.anyTenant}</option>
        {tenants?.map((tenant) => (
          <option key={tenant.tenantId} value={tenant.name}>
            {tenant.name}
          </option>
        ))}
      </select>
      <button type="submit">{t.apply}</button>
    </form>
  );
}

interface FormValues {
  clientId: string;
  name: string;
  grantTypes: string[];
  redirectUris: string[];
  scopes: string[];
  tenant: string;
  public: boolean;
  allowManagementScopes: boolean;
}

/** The create form, or (with `editing`) the change of a client's name, redirect URIs and scopes. */
function ClientForm({
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
  editing?: AdminClient;
  error: Error | null;
  busy: boolean;
  submitLabel: string;
  onSubmit(values: FormValues): void;
  onCancel(): void;
}) {
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const named = clientFieldOf(error);
  const field = named && (!editing || EDITABLE.includes(named)) ? named : undefined;
  // A refusal moves the focus to the field it is about, whose description reads it out.
  useEffect(() => {
    if (!error) return;
    const target = form.current?.querySelector<HTMLElement>(field ? `[data-field="${field}"]` : '[role="alert"]');
    target?.focus();
  }, [error, field]);

  const describe = (name: ClientField, hint?: string) => ({
    'data-field': name,
    'aria-invalid': field === name ? true : undefined,
    'aria-describedby':
      [hint && `${id}-${name}-hint`, field === name && `${id}-${name}-error`].filter(Boolean).join(' ') || undefined,
  });
  const fieldError = (name: ClientField) =>
    field === name && error ? (
      <p id={`${id}-${name}-error`} className="field-error">
        {errorText(error)}
      </p>
    ) : null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    onSubmit({
      clientId: text('clientId'),
      name: text('name'),
      grantTypes: data.getAll('grantTypes').map(String),
      redirectUris: words(text('redirectUris')),
      scopes: words(text('scopes')),
      tenant: text('tenant'),
      public: data.get('public') === 'on',
      allowManagementScopes: data.get('allowManagementScopes') === 'on',
    });
  };

  return (
    <form ref={form} className="console-form" noValidate onSubmit={submit}>
      {!editing && (
        <div className="form-field">
          <label htmlFor={`${id}-clientId`}>{t.clientId}</label>
          <input
            id={`${id}-clientId`}
            name="clientId"
            autoComplete="off"
            spellCheck={false}
            {...describe('clientId', 'hint')}
          />
          <p id={`${id}-clientId-hint`} className="field-hint">
            {t.clientIdHint}
          </p>
          {fieldError('clientId')}
        </div>
      )}
      <div className="form-field">
        <label htmlFor={`${id}-name`}>{t.name}</label>
        <input id={`${id}-name`} name="name" defaultValue={editing?.name} {...describe('name')} />
        {fieldError('name')}
      </div>
      {!editing && (
        <fieldset className="form-field" {...describe('grantTypes')} tabIndex={-1}>
          <legend>{t.grantTypes}</legend>
          {GRANT_TYPES.map((grant) => (
            <label key={grant} className="check">
              <input type="checkbox" name="grantTypes" value={grant} />
              {
                {
                  authorization_code: t.grantAuthorizationCode,
                  client_credentials: t.grantClientCredentials,
                  refresh_token: t.grantRefreshToken,
                }[grant]
              }
            </label>
          ))}
          {fieldError('grantTypes')}
        </fieldset>
      )}
      <div className="form-field">
        <label htmlFor={`${id}-redirectUris`}>{t.redirectUris}</label>
        <textarea
          id={`${id}-redirectUris`}
          name="redirectUris"
          rows={3}
          spellCheck={false}
          defaultValue={editing?.redirectUris.join('\n')}
          readOnly={editing?.protected}
          {...describe('redirectUris', 'hint')}
        />
        <p id={`${id}-redirectUris-hint`} className="field-hint">
          {t.redirectUrisHint}
        </p>
        {fieldError('redirectUris')}
      </div>
      <div className="form-field">
        <label htmlFor={`${id}-scopes`}>{t.scopes}</label>
        <input
          id={`${id}-scopes`}
          name="scopes"
          spellCheck={false}
          defaultValue={editing?.scopes.join(' ')}
          readOnly={editing?.protected}
          {...describe('scopes', 'hint')}
        />
        <p id={`${id}-scopes-hint`} className="field-hint">
          {t.scopesHint}
        </p>
        {fieldError('scopes')}
      </div>
      {!editing && (
        <div className="form-field">
          <label htmlFor={`${id}-tenant`}>{t.tenant}</label>
          <select id={`${id}-tenant`} name="tenant" defaultValue="" {...describe('tenant')}>
            <option value="">{t.defaultTenant}</option>
            <option value={OPERATOR_CHOICE}>{t.operatorIntegration}</option>
            {tenants?.map((tenant) => (
              <option key={tenant.tenantId} value={tenant.name}>
                {tenant.name}
              </option>
            ))}
          </select>
          {fieldError('tenant')}
        </div>
      )}
      {!editing && (
        <div className="form-field">
          <label className="check">
            <input type="checkbox" name="public" {...describe('public')} />
            {t.publicClient}
          </label>
          {fieldError('public')}
        </div>
      )}
      <div className="form-field">
        <label className="check">
          <input
            type="checkbox"
            name="allowManagementScopes"
            defaultChecked={editing?.scopes.some((scope) => MANAGEMENT_SCOPES.includes(scope))}
          />
          {t.allowManagementScopes}
        </label>
      </div>
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

function ClientTable({
  clients,
  t,
  firstNumber,
  onAction,
}: {
  clients: AdminClient[];
  t: Texts;
  firstNumber: number;
  onAction(client: AdminClient, action: RowAction): void;
}) {
  const formats = useFormats();
  const { locale } = useLocale();
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={t.allClients}>
      <table className="console-table">
        <thead>
          <tr>
            <th scope="col">{t.number}</th>
            <th scope="col">{t.clientId}</th>
            <th scope="col">{t.name}</th>
            <th scope="col">{t.tenant}</th>
            <th scope="col">{t.kind}</th>
            <th scope="col">{t.grantTypes}</th>
            <th scope="col">{t.scopes}</th>
            <th scope="col">{t.state}</th>
            <th scope="col">{t.createdAt}</th>
            <th scope="col">{t.actions}</th>
          </tr>
        </thead>
        <tbody>
          {clients.map((client, index) => (
            <tr key={client.clientId} data-client-id={client.clientId}>
              <td>{(firstNumber + index).toLocaleString(locale)}</td>
              <th scope="row">{client.clientId}</th>
              <td>{client.name}</td>
              <td>{client.tenant?.name ?? t.noTenant}</td>
              <td>{kindOf(t, client)}</td>
              <td>{client.grantTypes.join(' ')}</td>
              <td className="wrap">{client.scopes.join(' ')}</td>
              <td>
                {client.enabled ? t.enabled : t.disabled}
                {client.protected && <span className="badge"> {t.protectedNote}</span>}
              </td>
              <td>
                <time dateTime={client.createdAt}>{formats.dateTime(client.createdAt)}</time>
              </td>
              <td>
                <div className="row-actions" role="group" aria-label={t.actionsFor(client.clientId)}>
                  {actionsFor(client).map((action) => (
                    <button
                      key={action}
                      type="button"
                      data-action={action}
                      className={action === 'delete' ? 'destructive' : undefined}
                      onClick={() => onAction(client, action)}
                    >
                      {actionLabel(t, action)}
                    </button>
                  ))}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
