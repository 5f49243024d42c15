import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { errorText } from '../../lib/api';
import { useAuth } from '../../lib/auth/auth-context';
import { useFormats } from '../../lib/i18n/format';
import { useLocale } from '../../lib/i18n/locale';
import { useMessages } from '../../lib/i18n/messages';
import { ConfirmDialog } from '../../lib/ui/ConfirmDialog';
import { ModalDialog } from '../../lib/ui/ModalDialog';
import {
  AGENTS_KEY,
  type AgentChanges,
  type AgentField,
  type AgentFilters,
  type MarketplaceAgent,
  type NewAgent,
  agentFieldOf,
  createAgent,
  deleteAgent,
  listAgents,
  numberInput,
  updateAgent,
} from './api';
import { agentsText } from './messages';
import './marketplace-agents.css';

type Texts = ReturnType<typeof useMessages<typeof agentsText.en>>;
type RowAction = 'edit' | 'disable' | 'enable' | 'delete';
type ConfirmedAction = Exclude<RowAction, 'edit'>;

function actionLabel(t: Texts, action: RowAction): string {
  return { edit: t.edit, disable: t.disable, enable: t.enable, delete: t.delete }[action];
}

function confirmText(t: Texts, action: ConfirmedAction, agentId: string): string {
  return {
    disable: t.confirmDisable(agentId),
    enable: t.confirmEnable(agentId),
    delete: t.confirmDelete(agentId),
  }[action];
}

/** What the form holds, as typed (numbers as text, so that the API judges them). */
interface FormValues {
  agentId: string;
  name: string;
  instructions: string;
  model: string;
  temperature: string;
  maxOutputTokens: string;
  tenantId: string;
  enabled: boolean;
}

const shown = (value: string | number | null) => (value === null ? '' : String(value));

/** The create body: empty optional fields are left out (the API's defaults). */
function newAgentOf(values: FormValues): NewAgent {
  return {
    ...(values.agentId ? { agentId: values.agentId } : {}),
    name: values.name,
    instructions: values.instructions,
    ...(values.model ? { model: values.model } : {}),
    ...(values.temperature ? { temperature: numberInput(values.temperature) } : {}),
    ...(values.maxOutputTokens ? { maxOutputTokens: numberInput(values.maxOutputTokens) } : {}),
    enabled: values.enabled,
    ...(values.tenantId ? { tenantId: values.tenantId } : {}),
  };
}

/** The change: only the fields that differ from the agent's; an emptied optional field is reset (null). */
function changesOf(agent: MarketplaceAgent, values: FormValues): AgentChanges {
  const changes: AgentChanges = {};
  if (values.name !== agent.name) changes.name = values.name;
  if (values.instructions !== agent.instructions) changes.instructions = values.instructions;
  if (values.model !== shown(agent.model)) changes.model = values.model || null;
  if (values.temperature !== shown(agent.temperature)) {
    changes.temperature = values.temperature ? numberInput(values.temperature) : null;
  }
  if (values.maxOutputTokens !== shown(agent.maxOutputTokens)) {
    changes.maxOutputTokens = values.maxOutputTokens ? numberInput(values.maxOutputTokens) : null;
  }
  if (values.tenantId !== shown(agent.tenantId)) changes.tenantId = values.tenantId || null;
  if (values.enabled !== agent.enabled) changes.enabled = values.enabled;
  return changes;
}

/**
 * Marketplace agents (issue 38): the Marketplace edition's admin panel's agents, listed, made, changed, stopped and
 * removed by the platform operator over `/api/v1/admin/marketplace-agents` (as `platformctl agents`).
 */
export function MarketplaceAgentsScreen() {
  const auth = useAuth();
  const t = useMessages(agentsText);
  const queries = useQueryClient();
  const [filters, setFilters] = useState<AgentFilters>({});
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<MarketplaceAgent | undefined>();
  const [pending, setPending] = useState<{ agent: MarketplaceAgent; action: ConfirmedAction } | undefined>();
  const [done, setDone] = useState('');

  const list = useQuery({
    queryKey: [...AGENTS_KEY, 'list', filters, page],
    queryFn: async () => listAgents(await auth.accessToken(), filters, page),
    placeholderData: keepPreviousData,
  });
  const refresh = () => void queries.invalidateQueries({ queryKey: AGENTS_KEY });

  const create = useMutation({
    mutationFn: async (body: NewAgent) => createAgent(await auth.accessToken(), body),
    onSuccess: (created) => {
      create.reset();
      setCreating(false);
      setDone(t.created(created.agentId));
      refresh();
    },
  });
  const edit = useMutation({
    mutationFn: async ({ agentId, changes }: { agentId: string; changes: AgentChanges }) =>
      updateAgent(await auth.accessToken(), agentId, changes),
    onSuccess: (updated) => {
      edit.reset();
      setEditing(undefined);
      setDone(t.saved(updated.agentId));
      refresh();
    },
  });
  const act = useMutation({
    mutationFn: async ({ agent, action }: { agent: MarketplaceAgent; action: ConfirmedAction }) => {
      const token = await auth.accessToken();
      if (action === 'delete') return deleteAgent(token, agent.agentId);
      return updateAgent(token, agent.agentId, { enabled: action === 'enable' });
    },
    onSuccess: (_result, { agent, action }) => {
      act.reset();
      setPending(undefined);
      setDone(t.actionDone(actionLabel(t, action), agent.agentId));
      refresh();
    },
  });

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const search = String(form.get('search') ?? '').trim();
    const state = String(form.get('enabled') ?? '');
    setFilters({
      ...(search ? { search } : {}),
      ...(state === 'true' || state === 'false' ? { enabled: state === 'true' } : {}),
    });
    setPage(1);
  };
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / list.data.limit)) : 1;
  const closeCreate = () => {
    setCreating(false);
    create.reset();
  };
  const closeEdit = () => {
    setEditing(undefined);
    edit.reset();
  };

  return (
    <section className="console-screen agents-screen" aria-labelledby="marketplace-agents-title">
      <h2 id="marketplace-agents-title">{t.agents}</h2>
      <p>{t.intro}</p>
      <p role="status" className="console-status">
        {done}
      </p>
      <p>
        <button
          type="button"
          data-action="new-agent"
          onClick={() => {
            create.reset();
            setCreating(true);
          }}
        >
          {t.newAgent}
        </button>
      </p>

      <section aria-labelledby="all-agents-title">
        <h3 id="all-agents-title">{t.allAgents}</h3>
        <FiltersForm t={t} onSubmit={apply} />
        {list.error && <p role="alert">{errorText(list.error)}</p>}
        {list.data && list.data.agents.length === 0 && <p className="muted">{t.noAgents}</p>}
        {list.data && list.data.agents.length > 0 && (
          <AgentTable
            agents={list.data.agents}
            t={t}
            firstNumber={(page - 1) * list.data.limit + 1}
            onAction={(agent, action) => {
              act.reset();
              edit.reset();
              if (action === 'edit') setEditing(agent);
              else setPending({ agent, action });
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

      <ModalDialog open={creating} title={t.newAgent} onClose={closeCreate}>
        {creating && (
          <AgentForm
            t={t}
            error={create.error}
            busy={create.isPending}
            submitLabel={t.create}
            onCancel={closeCreate}
            onSubmit={(values) => create.mutate(newAgentOf(values))}
          />
        )}
      </ModalDialog>

      <ModalDialog open={editing !== undefined} title={editing ? t.editTitle(editing.agentId) : ''} onClose={closeEdit}>
        {editing && (
          <AgentForm
            t={t}
            editing={editing}
            error={edit.error}
            busy={edit.isPending}
            submitLabel={t.save}
            onCancel={closeEdit}
            onSubmit={(values) => edit.mutate({ agentId: editing.agentId, changes: changesOf(editing, values) })}
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
        {pending && <p>{confirmText(t, pending.action, pending.agent.agentId)}</p>}
        {act.error && <p role="alert">{errorText(act.error)}</p>}
      </ConfirmDialog>
    </section>
  );
}

function FiltersForm({ t, onSubmit }: { t: Texts; onSubmit(event: FormEvent<HTMLFormElement>): void }) {
  const id = useId();
  return (
    <form className="console-filters" role="search" aria-label={t.filters} onSubmit={onSubmit}>
      <label htmlFor={`${id}-search`}>{t.search}</label>
      <input id={`${id}-search`} name="search" type="search" maxLength={100} placeholder={t.searchHint} />
      <label htmlFor={`${id}-enabled`}>{t.state}</label>
      <select id={`${id}-enabled`} name="enabled" defaultValue="">
        <option value="">{t.anyState}</option>
        <option value="true">{t.enabled}</option>
        <option value="false">{t.disabled}</option>
      </select>
      <button type="submit">{t.apply}</button>
    </form>
  );
}

/** The create form, or (with `editing`) the change of an agent: every field the API takes, the id only at first. */
function AgentForm({
  t,
  editing,
  error,
  busy,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  t: Texts;
  editing?: MarketplaceAgent;
  error: Error | null;
  busy: boolean;
  submitLabel: string;
  onSubmit(values: FormValues): void;
  onCancel(): void;
}) {
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const field = agentFieldOf(error);
  // A refusal moves the focus to the field it is about, whose description reads it out.
  useEffect(() => {
    if (!error) return;
    const target = form.current?.querySelector<HTMLElement>(field ? `[data-field="${field}"]` : '[role="alert"]');
    target?.focus();
  }, [error, field]);

  const describe = (name: AgentField, hint?: boolean) => ({
    id: `${id}-${name}`,
    name,
    'data-field': name,
    'aria-invalid': field === name ? true : undefined,
    'aria-describedby':
      [hint && `${id}-${name}-hint`, field === name && `${id}-${name}-error`].filter(Boolean).join(' ') || undefined,
  });
  const hint = (name: AgentField, text: string) => (
    <p id={`${id}-${name}-hint`} className="field-hint">
      {text}
    </p>
  );
  const fieldError = (name: AgentField) =>
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
      agentId: text('agentId'),
      name: text('name'),
      // The instructions are kept as typed (their lines and spaces are the prompt's).
      instructions: String(data.get('instructions') ?? ''),
      model: text('model'),
      temperature: text('temperature'),
      maxOutputTokens: text('maxOutputTokens'),
      tenantId: text('tenantId'),
      enabled: data.get('enabled') === 'on',
    });
  };

  return (
    <form ref={form} className="agent-form" noValidate onSubmit={submit}>
      {!editing && (
        <div className="form-field">
          <label htmlFor={`${id}-agentId`}>{t.agentId}</label>
          <input autoComplete="off" spellCheck={false} {...describe('agentId', true)} />
          {hint('agentId', t.agentIdHint)}
          {fieldError('agentId')}
        </div>
      )}
      <div className="form-field">
        <label htmlFor={`${id}-name`}>{t.name}</label>
        <input autoComplete="off" defaultValue={editing?.name} {...describe('name')} />
        {fieldError('name')}
      </div>
      <div className="form-field">
        <label htmlFor={`${id}-instructions`}>{t.instructions}</label>
        <textarea rows={6} defaultValue={editing?.instructions} {...describe('instructions', true)} />
        {hint('instructions', t.instructionsHint)}
        {fieldError('instructions')}
      </div>
      <div className="form-field">
        <label htmlFor={`${id}-model`}>{t.model}</label>
        <input
          autoComplete="off"
          spellCheck={false}
          defaultValue={editing ? shown(editing.model) : undefined}
          {...describe('model', true)}
        />
        {hint('model', t.modelHint)}
        {fieldError('model')}
      </div>
      <div className="form-row">
        <div className="form-field">
          <label htmlFor={`${id}-temperature`}>{t.temperature}</label>
          <input
            inputMode="decimal"
            autoComplete="off"
            defaultValue={editing ? shown(editing.temperature) : undefined}
            {...describe('temperature', true)}
          />
          {hint('temperature', t.temperatureHint)}
          {fieldError('temperature')}
        </div>
        <div className="form-field">
          <label htmlFor={`${id}-maxOutputTokens`}>{t.maxOutputTokens}</label>
          <input
            inputMode="numeric"
            autoComplete="off"
            defaultValue={editing ? shown(editing.maxOutputTokens) : undefined}
            {...describe('maxOutputTokens', true)}
          />
          {hint('maxOutputTokens', t.maxOutputTokensHint)}
          {fieldError('maxOutputTokens')}
        </div>
      </div>
      <div className="form-field">
        <label htmlFor={`${id}-tenantId`}>{t.tenantId}</label>
        <input
          autoComplete="off"
          spellCheck={false}
          defaultValue={editing ? shown(editing.tenantId) : undefined}
          {...describe('tenantId', true)}
        />
        {hint('tenantId', t.tenantIdHint)}
        {fieldError('tenantId')}
      </div>
      <div className="form-field">
        <label className="check">
          <input type="checkbox" defaultChecked={editing?.enabled ?? true} {...describe('enabled')} />
          {t.enabledField}
        </label>
        {fieldError('enabled')}
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

function AgentTable({
  agents,
  t,
  firstNumber,
  onAction,
}: {
  agents: MarketplaceAgent[];
  t: Texts;
  firstNumber: number;
  onAction(agent: MarketplaceAgent, action: RowAction): void;
}) {
  const formats = useFormats();
  const { locale } = useLocale();
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={t.allAgents}>
      <table className="console-table">
        <thead>
          <tr>
            <th scope="col">{t.number}</th>
            <th scope="col">{t.agentId}</th>
            <th scope="col">{t.name}</th>
            <th scope="col">{t.model}</th>
            <th scope="col">{t.temperature}</th>
            <th scope="col">{t.maxOutputTokens}</th>
            <th scope="col">{t.tenantId}</th>
            <th scope="col">{t.state}</th>
            <th scope="col">{t.updatedAt}</th>
            <th scope="col">{t.actions}</th>
          </tr>
        </thead>
        <tbody>
          {agents.map((agent, index) => (
            <tr key={agent.agentId} data-agent-id={agent.agentId}>
              <td>{(firstNumber + index).toLocaleString(locale)}</td>
              <th scope="row">{agent.agentId}</th>
              <td>{agent.name}</td>
              <td>{agent.model ?? t.defaultValue}</td>
              <td>{agent.temperature === null ? t.defaultValue : agent.temperature.toLocaleString(locale)}</td>
              <td>{agent.maxOutputTokens === null ? t.defaultValue : agent.maxOutputTokens.toLocaleString(locale)}</td>
              <td>{agent.tenantId ?? t.everyTenant}</td>
              <td data-state={agent.enabled ? 'enabled' : 'disabled'}>{agent.enabled ? t.enabled : t.disabled}</td>
              <td>
                <time dateTime={agent.updatedAt}>{formats.dateTime(agent.updatedAt)}</time>
              </td>
              <td>
                <div className="row-actions" role="group" aria-label={t.actionsFor(agent.agentId)}>
                  {(['edit', agent.enabled ? 'disable' : 'enable', 'delete'] as const).map((action) => (
                    <button
                      key={action}
                      type="button"
                      data-action={action}
                      className={action === 'delete' ? 'destructive' : undefined}
                      onClick={() => onAction(agent, action)}
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
