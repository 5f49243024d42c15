import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { errorText } from '../../lib/api';
import { useAuth } from '../../lib/auth/auth-context';
import { useFormats } from '../../lib/i18n/format';
import { useMessages } from '../../lib/i18n/messages';
import { ConfirmDialog } from '../../lib/ui/ConfirmDialog';
import {
  type AdminUser,
  USERS_KEY,
  type UserAction,
  type UserFilters,
  listMasterData,
  listUsers,
  runUserAction,
} from './api';
import { usersText } from './messages';

type Texts = ReturnType<typeof useMessages<typeof usersText.en>>;

/** The actions a user's row offers, by the spec's state table (approve only pending, reject only approved, ...). */
function actionsFor(user: AdminUser, selfId: string | undefined): UserAction[] {
  const actions: UserAction[] = [];
  if (user.status === 'pending') actions.push('approve');
  if (user.status === 'approved') {
    actions.push('reject');
    actions.push(user.role === 'admin' ? 'demote' : 'promote');
  }
  if (user.userId !== selfId) actions.push('delete');
  return actions;
}

function actionLabel(t: Texts, action: UserAction): string {
  return { approve: t.approve, reject: t.reject, promote: t.makeAdmin, demote: t.makeUser, delete: t.delete }[action];
}

function confirmText(t: Texts, action: UserAction, email: string): string {
  return {
    approve: t.confirmApprove(email),
    reject: t.confirmReject(email),
    promote: t.confirmMakeAdmin(email),
    demote: t.confirmMakeUser(email),
    delete: t.confirmDelete(email),
  }[action];
}

function statusLabel(t: Texts, status: AdminUser['status']): string {
  return { pending: t.statusPending, unverified: t.statusUnverified, approved: t.statusApproved }[status];
}

interface Pending {
  user: AdminUser;
  action: UserAction;
}

/** Users (document 3): the ones waiting for approval first, then every user with the spec's filters and pages. */
export function UsersScreen({ selfId, canManage }: { selfId?: string; canManage: boolean }) {
  const auth = useAuth();
  const t = useMessages(usersText);
  const queries = useQueryClient();
  const [filters, setFilters] = useState<UserFilters>({});
  const [page, setPage] = useState(1);
  const [pending, setPending] = useState<Pending | undefined>();
  const [done, setDone] = useState('');

  const waiting = useQuery({
    queryKey: [...USERS_KEY, 'waiting'],
    queryFn: async () => listUsers(await auth.accessToken(), { isApproved: 'false' }, 1, 100),
  });
  const all = useQuery({
    queryKey: [...USERS_KEY, 'all', filters, page],
    queryFn: async () => listUsers(await auth.accessToken(), filters, page),
    placeholderData: keepPreviousData,
  });
  const master = useQuery({
    queryKey: ['master-data'],
    queryFn: async () => listMasterData(await auth.accessToken()),
    staleTime: 60_000,
  });
  const act = useMutation({
    mutationFn: async ({ user, action }: Pending) => runUserAction(await auth.accessToken(), user.userId, action),
    onSuccess: (_result, { user, action }) => {
      setDone(t.actionDone(actionLabel(t, action), user.email));
      setPending(undefined);
      void queries.invalidateQueries({ queryKey: USERS_KEY });
    },
  });

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => {
      const value = String(form.get(name) ?? '').trim();
      return value === '' ? undefined : value;
    };
    setFilters({
      search: text('search'),
      role: text('role') === 'admin' ? 'admin' : undefined,
      isApproved: (text('approved') as UserFilters['isApproved']) ?? undefined,
      organization: text('organization'),
      jobType: text('jobType'),
    });
    setPage(1);
  };

  const pages = all.data ? Math.max(1, Math.ceil(all.data.total / all.data.limit)) : 1;
  const waitingUsers = (waiting.data?.users ?? []).filter((user) => user.status === 'pending');

  return (
    <section className="console-screen" aria-labelledby="users-title">
      <h2 id="users-title">{t.users}</h2>
      <p role="status" className="console-status">
        {done}
      </p>

      <section aria-labelledby="waiting-title">
        <h3 id="waiting-title">{t.waiting}</h3>
        {waiting.error && <p role="alert">{waiting.error.message}</p>}
        {waiting.data && waitingUsers.length === 0 && <p className="muted">{t.noneWaiting}</p>}
        {waitingUsers.length > 0 && (
          <UserTable
            caption={t.waiting}
            users={waitingUsers}
            t={t}
            selfId={selfId}
            canManage={canManage}
            onAction={(user, action) => setPending({ user, action })}
          />
        )}
      </section>

      <section aria-labelledby="all-title">
        <h3 id="all-title">{t.allUsers}</h3>
        <UserFiltersForm t={t} master={master.data} onSubmit={apply} />
        {all.error && <p role="alert">{all.error.message}</p>}
        {all.data && all.data.users.length === 0 && <p className="muted">{t.noUsers}</p>}
        {all.data && all.data.users.length > 0 && (
          <UserTable
            caption={t.allUsers}
            users={all.data.users}
            t={t}
            selfId={selfId}
            canManage={canManage}
            onAction={(user, action) => setPending({ user, action })}
          />
        )}
        {all.data && (
          <nav className="pager" aria-label={t.pages}>
            <button type="button" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
              {t.previous}
            </button>
            {/* The page the rows shown are (the answer's), not the one asked for: the last page stays on screen until it comes. */}
            <span aria-live="polite">{t.pageOf(all.data.page, pages, all.data.total)}</span>
            <button type="button" disabled={!all.data.hasMore} onClick={() => setPage((p) => p + 1)}>
              {t.next}
            </button>
          </nav>
        )}
      </section>

      <ConfirmDialog
        open={pending !== undefined}
        title={pending ? actionLabel(t, pending.action) : ''}
        confirmLabel={pending ? actionLabel(t, pending.action) : ''}
        cancelLabel={t.cancel}
        destructive={pending?.action === 'delete' || pending?.action === 'reject' || pending?.action === 'demote'}
        busy={act.isPending}
        onConfirm={() => pending && act.mutate(pending)}
        onCancel={() => {
          setPending(undefined);
          act.reset();
        }}
      >
        {pending && <p>{confirmText(t, pending.action, pending.user.email)}</p>}
        {act.error && <p role="alert">{errorText(act.error)}</p>}
      </ConfirmDialog>
    </section>
  );
}

function UserFiltersForm({
  t,
  master,
  onSubmit,
}: {
  t: Texts;
  master: Awaited<ReturnType<typeof listMasterData>> | undefined;
  onSubmit(event: FormEvent<HTMLFormElement>): void;
}) {
  const id = useId();
  return (
    <form className="console-filters" role="search" aria-label={t.filters} onSubmit={onSubmit}>
      <label htmlFor={`${id}-search`}>{t.search}</label>
      <input id={`${id}-search`} name="search" type="search" maxLength={100} placeholder={t.searchHint} />
      <label htmlFor={`${id}-role`}>{t.role}</label>
      <select id={`${id}-role`} name="role" defaultValue="">
        <option value="">{t.anyRole}</option>
        <option value="admin">{t.admin}</option>
      </select>
      <label htmlFor={`${id}-approved`}>{t.approval}</label>
      <select id={`${id}-approved`} name="approved" defaultValue="">
        <option value="">{t.any}</option>
        <option value="true">{t.statusApproved}</option>
        <option value="false">{t.notApproved}</option>
      </select>
      <label htmlFor={`${id}-organization`}>{t.organization}</label>
      <select id={`${id}-organization`} name="organization" defaultValue="">
        <option value="">{t.any}</option>
        {master?.organizations.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-job`}>{t.jobType}</label>
      <select id={`${id}-job`} name="jobType" defaultValue="">
        <option value="">{t.any}</option>
        {master?.jobTypes.map((j) => (
          <option key={j.value} value={j.value}>
            {j.label}
          </option>
        ))}
      </select>
      <button type="submit">{t.apply}</button>
    </form>
  );
}

function UserTable({
  caption,
  users,
  t,
  selfId,
  canManage,
  onAction,
}: {
  caption: string;
  users: AdminUser[];
  t: Texts;
  selfId?: string;
  canManage: boolean;
  onAction(user: AdminUser, action: UserAction): void;
}) {
  const formats = useFormats();
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={caption}>
      <table className="console-table">
        <thead>
          <tr>
            <th scope="col">{t.email}</th>
            <th scope="col">{t.username}</th>
            <th scope="col">{t.role}</th>
            <th scope="col">{t.status}</th>
            <th scope="col">{t.organization}</th>
            <th scope="col">{t.jobType}</th>
            <th scope="col">{t.created}</th>
            <th scope="col">{t.lastLogin}</th>
            {canManage && <th scope="col">{t.actions}</th>}
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            <tr key={user.userId} data-user-id={user.userId}>
              <th scope="row">{user.email}</th>
              <td>{user.username}</td>
              <td>{user.role === 'admin' ? t.admin : t.user}</td>
              <td>{statusLabel(t, user.status)}</td>
              <td>{user.organization?.label ?? ''}</td>
              <td>{user.jobType?.label ?? ''}</td>
              <td>
                <time dateTime={user.createdAt}>{formats.dateTime(user.createdAt)}</time>
              </td>
              <td>
                {user.lastLoginAt ? (
                  <time dateTime={user.lastLoginAt}>{formats.dateTime(user.lastLoginAt)}</time>
                ) : (
                  t.never
                )}
              </td>
              {canManage && (
                <td>
                  <div className="row-actions" role="group" aria-label={t.actionsFor(user.email)}>
                    {actionsFor(user, selfId).map((action) => (
                      <button
                        key={action}
                        type="button"
                        data-action={action}
                        className={action === 'delete' ? 'destructive' : undefined}
                        onClick={() => onAction(user, action)}
                      >
                        {actionLabel(t, action)}
                      </button>
                    ))}
                  </div>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
