import { errorText } from '../../lib/api';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { useAuth } from '../../lib/auth/auth-context';
import { useFormats } from '../../lib/i18n/format';
import { useMessages } from '../../lib/i18n/messages';
import { ConfirmDialog } from '../../lib/ui/ConfirmDialog';
import {
  TOOL_SERVERS_KEY,
  type ToolServer,
  addToolServer,
  listToolServers,
  refreshToolServer,
  removeToolServer,
  setAllowedTools,
} from './api';
import { Pager } from './CatalogParts';
import { catalogText } from './messages';
import './catalog.css';

type Texts = ReturnType<typeof useMessages<typeof catalogText.en>>;

function stateLabel(t: Texts, state: ToolServer['state']): string {
  return { ready: t.stateReady, failing: t.stateFailing, disabled: t.stateDisabled }[state];
}

/** Tool servers (issue 38): each approved server with its state, the tools it offers and which are allowed. */
export function ToolServersScreen() {
  const auth = useAuth();
  const t = useMessages(catalogText);
  const formats = useFormats();
  const queries = useQueryClient();
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<string | undefined>();
  const [removing, setRemoving] = useState<ToolServer | undefined>();
  const [done, setDone] = useState('');

  const list = useQuery({
    queryKey: [...TOOL_SERVERS_KEY, page],
    queryFn: async () => listToolServers(await auth.accessToken(), page),
    placeholderData: keepPreviousData,
  });
  const refreshed = () => queries.invalidateQueries({ queryKey: TOOL_SERVERS_KEY });
  const refresh = useMutation({
    mutationFn: async (name: string) => refreshToolServer(await auth.accessToken(), name),
    onSuccess: (server) => setDone(t.refreshed(server.name, server.tools.filter((tool) => tool.offered).length)),
    onSettled: () => void refreshed(),
  });
  const remove = useMutation({
    mutationFn: async (name: string) => removeToolServer(await auth.accessToken(), name),
    onSuccess: (_result, name) => {
      setDone(t.removed(name));
      setRemoving(undefined);
      if (selected === name) setSelected(undefined);
      void refreshed();
    },
  });

  const servers = list.data?.items ?? [];
  const current = servers.find((server) => server.name === selected);

  return (
    <section className="console-screen" aria-labelledby="tool-servers-title">
      <h2 id="tool-servers-title">{t.toolServers}</h2>
      <p role="status" className="console-status">
        {done}
      </p>
      {refresh.error && (
        <p role="alert" className="console-error">
          {t.refreshFailed(refresh.variables ?? '', errorText(refresh.error))}
        </p>
      )}
      {list.error && <p role="alert">{errorText(list.error)}</p>}
      {list.data && servers.length === 0 && <p className="muted">{t.noToolServers}</p>}
      {servers.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label={t.toolServers}>
          <table className="console-table">
            <thead>
              <tr>
                <th scope="col">{t.name}</th>
                <th scope="col">{t.url}</th>
                <th scope="col">{t.state}</th>
                <th scope="col">{t.allowedOfOffered}</th>
                <th scope="col">{t.lastRefresh}</th>
                <th scope="col">{t.lastError}</th>
                <th scope="col">{t.actions}</th>
              </tr>
            </thead>
            <tbody>
              {servers.map((server) => (
                <tr key={server.name} data-name={server.name}>
                  <th scope="row">{server.name}</th>
                  <td>{server.url}</td>
                  <td data-state={server.state}>{stateLabel(t, server.state)}</td>
                  <td>{t.toolCount(server.allowedTools.length, server.tools.filter((tool) => tool.offered).length)}</td>
                  <td>
                    {server.lastRefreshedAt ? (
                      <time dateTime={server.lastRefreshedAt}>{formats.dateTime(server.lastRefreshedAt)}</time>
                    ) : (
                      t.never
                    )}
                  </td>
                  <td className="wrap">{server.lastError ?? ''}</td>
                  <td>
                    <div className="row-actions" role="group" aria-label={t.actionsFor(server.name)}>
                      <button
                        type="button"
                        data-action="tools"
                        aria-pressed={selected === server.name}
                        onClick={() => setSelected(server.name)}
                      >
                        {t.tools}
                      </button>
                      <button
                        type="button"
                        data-action="refresh"
                        disabled={refresh.isPending}
                        onClick={() => {
                          setDone('');
                          refresh.mutate(server.name);
                        }}
                      >
                        {t.refresh}
                      </button>
                      <button
                        type="button"
                        data-action="remove"
                        className="destructive"
                        onClick={() => setRemoving(server)}
                      >
                        {t.remove}
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager t={t} page={page} data={list.data} onPage={setPage} />}

      {current && (
        <AllowedTools
          key={`${current.name}:${current.updatedAt}:${current.lastRefreshedAt ?? ''}`}
          server={current}
          t={t}
          onSaved={(server) => {
            setDone(t.allowedSaved(server.name));
            void refreshed();
          }}
        />
      )}

      <AddToolServer
        t={t}
        onAdded={(server) => {
          setDone(t.added(server.name));
          setSelected(server.name);
          void refreshed();
        }}
      />

      <ConfirmDialog
        open={removing !== undefined}
        title={t.remove}
        confirmLabel={t.remove}
        cancelLabel={t.cancel}
        destructive
        busy={remove.isPending}
        onConfirm={() => removing && remove.mutate(removing.name)}
        onCancel={() => {
          setRemoving(undefined);
          remove.reset();
        }}
      >
        {removing && <p>{t.confirmRemove(removing.name)}</p>}
        {remove.error && <p role="alert">{errorText(remove.error)}</p>}
      </ConfirmDialog>
    </section>
  );
}

/** The server's tools as checkboxes: the allowed ones checked; saving asks the server for its tools first. */
function AllowedTools({ server, t, onSaved }: { server: ToolServer; t: Texts; onSaved(server: ToolServer): void }) {
  const auth = useAuth();
  const id = useId();
  const [allowed, setAllowed] = useState(() => new Set(server.allowedTools));
  const save = useMutation({
    mutationFn: async (names: string[]) => setAllowedTools(await auth.accessToken(), server.name, names),
    onSuccess: onSaved,
  });
  useEffect(() => setAllowed(new Set(server.allowedTools)), [server.allowedTools]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(server.tools.map((tool) => tool.name).filter((name) => allowed.has(name)));
  };
  return (
    <section aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{t.toolsOf(server.name)}</h3>
      <form onSubmit={submit} className="console-form">
        <fieldset>
          <legend>{t.allowedTools}</legend>
          {server.tools.length === 0 && <p className="muted">{t.noTools}</p>}
          <ul className="tool-list">
            {server.tools.map((tool) => (
              <li key={tool.name}>
                <input
                  type="checkbox"
                  id={`${id}-${tool.name}`}
                  name="allowed"
                  value={tool.name}
                  checked={allowed.has(tool.name)}
                  aria-describedby={`${id}-${tool.name}-about`}
                  onChange={(event) => {
                    const next = new Set(allowed);
                    if (event.currentTarget.checked) next.add(tool.name);
                    else next.delete(tool.name);
                    setAllowed(next);
                  }}
                />
                <label htmlFor={`${id}-${tool.name}`}>{tool.name}</label>
                <span id={`${id}-${tool.name}-about`} className="muted">
                  {tool.offered ? tool.description : t.notOffered}
                  {tool.offered && tool.agentToolName === null ? ` ${t.nameTooLong}` : ''}
                </span>
              </li>
            ))}
          </ul>
        </fieldset>
        {save.error && <p role="alert">{errorText(save.error)}</p>}
        <button type="submit" disabled={save.isPending}>
          {t.saveAllowed}
        </button>
      </form>
    </section>
  );
}

function AddToolServer({ t, onAdded }: { t: Texts; onAdded(server: ToolServer): void }) {
  const auth = useAuth();
  const id = useId();
  const add = useMutation({
    mutationFn: async (input: Parameters<typeof addToolServer>[1]) => addToolServer(await auth.accessToken(), input),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const timeout = text('timeout');
    add.mutate(
      {
        name: text('name'),
        url: text('url'),
        allowedTools: text('allowed')
          .split(/[\s,]+/)
          .filter((name) => name !== ''),
        ...(text('authHeader') === '' ? {} : { authHeader: String(data.get('authHeader')) }),
        ...(timeout === '' ? {} : { timeoutSeconds: Number(timeout) }),
      },
      {
        onSuccess: (server) => {
          form.reset();
          onAdded(server);
        },
      },
    );
  };
  return (
    <section aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{t.addToolServer}</h3>
      <form className="console-form" onSubmit={submit}>
        <label htmlFor={`${id}-name`}>{t.name}</label>
        <input id={`${id}-name`} name="name" required maxLength={32} aria-describedby={`${id}-name-hint`} />
        <small id={`${id}-name-hint`} className="muted">
          {t.serverNameHint}
        </small>
        <label htmlFor={`${id}-url`}>{t.url}</label>
        <input id={`${id}-url`} name="url" type="url" required />
        <label htmlFor={`${id}-allowed`}>{t.allowedTools}</label>
        <input id={`${id}-allowed`} name="allowed" required aria-describedby={`${id}-allowed-hint`} />
        <small id={`${id}-allowed-hint`} className="muted">
          {t.allowedHint}
        </small>
        <label htmlFor={`${id}-auth`}>{t.authHeader}</label>
        <input
          id={`${id}-auth`}
          name="authHeader"
          type="password"
          autoComplete="off"
          aria-describedby={`${id}-auth-hint`}
        />
        <small id={`${id}-auth-hint`} className="muted">
          {t.authHint}
        </small>
        <label htmlFor={`${id}-timeout`}>{t.timeout}</label>
        <input id={`${id}-timeout`} name="timeout" type="number" min={1} max={300} inputMode="numeric" />
        {add.error && <p role="alert">{errorText(add.error)}</p>}
        <button type="submit" disabled={add.isPending}>
          {t.add}
        </button>
      </form>
    </section>
  );
}
