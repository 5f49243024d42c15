import { errorText } from '../../lib/api';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useAuth } from '../../lib/auth/auth-context';
import { useFormats } from '../../lib/i18n/format';
import { useLocale } from '../../lib/i18n/locale';
import { useMessages } from '../../lib/i18n/messages';
import { ConfirmDialog } from '../../lib/ui/ConfirmDialog';
import { ModalDialog } from '../../lib/ui/ModalDialog';
import {
  type CatalogEntry,
  type CatalogField,
  type CatalogFields,
  type CatalogKind,
  PAGE_SIZE,
  catalogFieldOf,
  catalogKey,
  createCatalogEntry,
  deleteCatalogEntry,
  hasEnabledFlag,
  listAllCatalog,
  updateCatalogEntry,
} from './api';
import { Pager } from './CatalogParts';
import { entryText } from './entry-messages';
import { catalogText } from './messages';
import './catalog.css';

type Texts = (typeof entryText)['en'];
type Shared = (typeof catalogText)['en'];

/** The words of one kind: its title, its new button, its empty list, its on-off state and switch. */
function wordsOf(kind: CatalogKind, t: Texts) {
  switch (kind) {
    case 'personas':
      return { title: t.personas, create: t.newPersona, none: t.noPersonas, idLabel: t.personaKey };
    case 'playbooks':
      return {
        title: t.playbooks,
        create: t.newPlaybook,
        none: t.noPlaybooks,
        idLabel: t.entryId,
        on: t.active,
        off: t.inactive,
        turnOn: t.activate,
        turnOff: t.deactivate,
        turnedOn: t.activated,
        turnedOff: t.deactivated,
      };
    case 'skills':
      return {
        title: t.skills,
        create: t.newSkill,
        none: t.noSkills,
        idLabel: t.entryId,
        on: t.available,
        off: t.unavailable,
        turnOn: t.enable,
        turnOff: t.disable,
        turnedOn: t.enabledDone,
        turnedOff: t.disabledDone,
      };
  }
}
type Words = ReturnType<typeof wordsOf>;

/** The search's match: the name, the key or id, or the description, whatever the case. */
function matches(entry: CatalogEntry, search: string): boolean {
  const needle = search.trim().toLocaleLowerCase();
  if (needle === '') return true;
  return [entry.name, entry.id, entry.description].some((text) => text.toLocaleLowerCase().includes(needle));
}

/** A long description is cut in the list (between characters, never inside a surrogate pair); the edit form shows it whole. */
function short(text: string): string {
  const characters = Array.from(text);
  return characters.length > 140 ? `${characters.slice(0, 139).join('')}…` : text;
}

/**
 * Personas, playbooks or skills (issue 38, platform:manage): a numbered list with search, create and edit in a
 * dialog form whose refusals are shown at the field they name, switching a playbook or skill off and on, and
 * delete behind a confirmation.
 */
export function CatalogScreen({ kind }: { kind: CatalogKind }) {
  const auth = useAuth();
  const t = useMessages(entryText);
  const shared = useMessages(catalogText);
  const words = wordsOf(kind, t);
  const queries = useQueryClient();
  const heading = useRef<HTMLHeadingElement>(null);
  const searchId = useId();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<CatalogEntry | undefined>();
  const [deleting, setDeleting] = useState<CatalogEntry | undefined>();
  const [done, setDone] = useState('');

  const list = useQuery({
    queryKey: catalogKey(kind),
    queryFn: async () => listAllCatalog(await auth.accessToken(), kind),
  });
  const refresh = () => queries.invalidateQueries({ queryKey: catalogKey(kind) });

  const create = useMutation({
    mutationFn: async (fields: CatalogFields & { personaKey?: string }) =>
      createCatalogEntry(await auth.accessToken(), kind, fields),
    onSuccess: (entry) => {
      create.reset();
      setCreating(false);
      setDone(t.created(entry.name));
      void refresh();
    },
  });
  const edit = useMutation({
    mutationFn: async ({ id, fields }: { id: string; fields: CatalogFields }) =>
      updateCatalogEntry(await auth.accessToken(), kind, id, fields),
    onSuccess: (entry) => {
      edit.reset();
      setEditing(undefined);
      setDone(t.saved(entry.name));
      void refresh();
    },
  });
  const toggle = useMutation({
    mutationFn: async (entry: CatalogEntry) =>
      updateCatalogEntry(await auth.accessToken(), kind, entry.id, { enabled: !entry.enabled }),
    onSuccess: (entry) => {
      setDone(entry.enabled ? (words.turnedOn?.(entry.name) ?? '') : (words.turnedOff?.(entry.name) ?? ''));
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: async (entry: CatalogEntry) => deleteCatalogEntry(await auth.accessToken(), kind, entry.id),
    onSuccess: async (_result, entry) => {
      remove.reset();
      setDeleting(undefined);
      setDone(t.deleted(entry.name));
      await refresh();
      // The row and its button are gone: the focus goes to the screen's heading rather than the page's body.
      heading.current?.focus();
    },
  });

  const all = list.data ?? [];
  const found = useMemo(() => all.filter((entry) => matches(entry, search)), [all, search]);
  const pages = Math.max(1, Math.ceil(found.length / PAGE_SIZE));
  const shownPage = Math.min(page, pages);
  const first = (shownPage - 1) * PAGE_SIZE;
  const rows = found.slice(first, first + PAGE_SIZE);
  const titleId = `${kind}-title`;

  return (
    <section className="console-screen catalog-screen" aria-labelledby={titleId} data-kind={kind}>
      <h2 id={titleId} ref={heading} tabIndex={-1}>
        {words.title}
      </h2>
      <p role="status" className="console-status">
        {done}
      </p>
      {toggle.error && (
        <p role="alert" className="console-error">
          {errorText(toggle.error)}
        </p>
      )}
      <p>
        <button
          type="button"
          data-action="new"
          onClick={() => {
            create.reset();
            setCreating(true);
          }}
        >
          {words.create}
        </button>
      </p>

      <form className="console-filters" role="search" aria-label={t.search} onSubmit={(e) => e.preventDefault()}>
        <label htmlFor={`${searchId}-search`}>{t.search}</label>
        <input
          id={`${searchId}-search`}
          name="search"
          type="search"
          maxLength={200}
          value={search}
          aria-describedby={`${searchId}-search-hint`}
          onChange={(event) => {
            setSearch(event.currentTarget.value);
            setPage(1);
          }}
        />
        <small id={`${searchId}-search-hint`} className="muted">
          {t.searchHint}
        </small>
      </form>
      {list.error && <p role="alert">{errorText(list.error)}</p>}
      {list.data && all.length === 0 && <p className="muted">{words.none}</p>}
      {/* Always there, so that a screen reader hears what a search found as it is typed. */}
      <p className="muted catalog-found" aria-live="polite">
        {list.data && all.length > 0 && search.trim() !== ''
          ? found.length === 0
            ? t.noMatches
            : t.shown(found.length, all.length)
          : ''}
      </p>
      {rows.length > 0 && (
        <EntryTable
          kind={kind}
          entries={rows}
          firstNumber={first + 1}
          t={t}
          shared={shared}
          words={words}
          busy={toggle.isPending}
          onEdit={(entry) => {
            edit.reset();
            setEditing(entry);
          }}
          onToggle={(entry) => {
            setDone('');
            toggle.mutate(entry);
          }}
          onDelete={(entry) => {
            remove.reset();
            setDeleting(entry);
          }}
        />
      )}
      {list.data && (
        <Pager
          t={shared}
          page={shownPage}
          data={{ items: [], total: found.length, limit: PAGE_SIZE, page: shownPage, hasMore: shownPage < pages }}
          onPage={setPage}
        />
      )}

      <ModalDialog
        open={creating}
        title={words.create}
        onClose={() => {
          setCreating(false);
          create.reset();
        }}
      >
        <EntryForm
          kind={kind}
          t={t}
          shared={shared}
          words={words}
          error={create.error}
          busy={create.isPending}
          submitLabel={t.create}
          onCancel={() => {
            setCreating(false);
            create.reset();
          }}
          onSubmit={(values) => create.mutate(values)}
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
          <EntryForm
            kind={kind}
            t={t}
            shared={shared}
            words={words}
            editing={editing}
            error={edit.error}
            busy={edit.isPending}
            submitLabel={t.save}
            onCancel={() => {
              setEditing(undefined);
              edit.reset();
            }}
            onSubmit={(values) =>
              edit.mutate({
                id: editing.id,
                fields: {
                  name: values.name,
                  description: values.description,
                  instructions: values.instructions,
                  enabled: values.enabled,
                },
              })
            }
          />
        )}
      </ModalDialog>

      <ConfirmDialog
        open={deleting !== undefined}
        title={t.delete}
        confirmLabel={t.delete}
        cancelLabel={shared.cancel}
        destructive
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onCancel={() => {
          setDeleting(undefined);
          remove.reset();
        }}
      >
        {deleting && <p>{t.confirmDelete(deleting.name)}</p>}
        {remove.error && <p role="alert">{errorText(remove.error)}</p>}
      </ConfirmDialog>
    </section>
  );
}

function EntryTable({
  kind,
  entries,
  firstNumber,
  t,
  shared,
  words,
  busy,
  onEdit,
  onToggle,
  onDelete,
}: {
  kind: CatalogKind;
  entries: CatalogEntry[];
  firstNumber: number;
  t: Texts;
  shared: Shared;
  words: Words;
  busy: boolean;
  onEdit(entry: CatalogEntry): void;
  onToggle(entry: CatalogEntry): void;
  onDelete(entry: CatalogEntry): void;
}) {
  const formats = useFormats();
  const { locale } = useLocale();
  const switchable = hasEnabledFlag(kind);
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={words.title}>
      <table className="console-table">
        <thead>
          <tr>
            <th scope="col">{t.number}</th>
            <th scope="col">{shared.name}</th>
            <th scope="col">{words.idLabel}</th>
            <th scope="col">{t.description}</th>
            {switchable && <th scope="col">{shared.state}</th>}
            <th scope="col">{t.updated}</th>
            <th scope="col">{shared.actions}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry, index) => (
            <tr key={entry.id} data-id={entry.id}>
              <td>{(firstNumber + index).toLocaleString(locale)}</td>
              <th scope="row">{entry.name}</th>
              <td>
                <code>{entry.id}</code>
              </td>
              <td className="wrap">{short(entry.description)}</td>
              {switchable && <td data-enabled={String(entry.enabled)}>{entry.enabled ? words.on : words.off}</td>}
              <td>
                <time dateTime={entry.updatedAt}>{formats.dateTime(entry.updatedAt)}</time>
              </td>
              <td>
                <div className="row-actions" role="group" aria-label={shared.actionsFor(entry.name)}>
                  <button type="button" data-action="edit" onClick={() => onEdit(entry)}>
                    {t.edit}
                  </button>
                  {switchable && (
                    <button type="button" data-action="toggle" disabled={busy} onClick={() => onToggle(entry)}>
                      {entry.enabled ? words.turnOff : words.turnOn}
                    </button>
                  )}
                  <button type="button" data-action="delete" className="destructive" onClick={() => onDelete(entry)}>
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

interface FormValues {
  personaKey?: string;
  name: string;
  description: string;
  instructions: string;
  enabled?: boolean;
}

/** The create form (a persona's key, and whether a playbook or skill is on), or with `editing` its change. */
function EntryForm({
  kind,
  t,
  shared,
  words,
  editing,
  error,
  busy,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  kind: CatalogKind;
  t: Texts;
  shared: Shared;
  words: Words;
  editing?: CatalogEntry;
  error: Error | null;
  busy: boolean;
  submitLabel: string;
  onSubmit(values: FormValues): void;
  onCancel(): void;
}) {
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const field = catalogFieldOf(error);
  const switchable = hasEnabledFlag(kind);
  // A refusal moves the focus to the field it names, whose description then reads it out.
  useEffect(() => {
    if (!error) return;
    const target = form.current?.querySelector<HTMLElement>(field ? `[data-field="${field}"]` : '[role="alert"]');
    target?.focus();
  }, [error, field]);

  const describe = (name: CatalogField, hint?: boolean) => ({
    'data-field': name,
    'aria-invalid': field === name ? true : undefined,
    'aria-describedby':
      [hint && `${id}-${name}-hint`, field === name && `${id}-${name}-error`].filter(Boolean).join(' ') || undefined,
  });
  const fieldError = (name: CatalogField) =>
    field === name && error ? (
      <p id={`${id}-${name}-error`} className="field-error">
        {errorText(error)}
      </p>
    ) : null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const text = (name: string) => String(data.get(name) ?? '');
    onSubmit({
      ...(kind === 'personas' && !editing ? { personaKey: text('personaKey').trim() } : {}),
      name: text('name'),
      description: text('description'),
      instructions: text('instructions'),
      ...(switchable ? { enabled: data.get('enabled') === 'on' } : {}),
    });
  };

  return (
    <form ref={form} className="console-form catalog-form" noValidate onSubmit={submit}>
      {kind === 'personas' && !editing && (
        <div className="form-field">
          <label htmlFor={`${id}-personaKey`}>{t.personaKey}</label>
          <input
            id={`${id}-personaKey`}
            name="personaKey"
            required
            maxLength={64}
            autoComplete="off"
            spellCheck={false}
            {...describe('personaKey', true)}
          />
          <p id={`${id}-personaKey-hint`} className="field-hint">
            {t.personaKeyHint}
          </p>
          {fieldError('personaKey')}
        </div>
      )}
      <div className="form-field">
        <label htmlFor={`${id}-name`}>{shared.name}</label>
        <input
          id={`${id}-name`}
          name="name"
          required
          maxLength={200}
          autoComplete="off"
          defaultValue={editing?.name}
          {...describe('name')}
        />
        {fieldError('name')}
      </div>
      <div className="form-field">
        <label htmlFor={`${id}-description`}>{t.description}</label>
        <textarea
          id={`${id}-description`}
          name="description"
          rows={2}
          maxLength={2000}
          defaultValue={editing?.description}
          {...describe('description')}
        />
        {fieldError('description')}
      </div>
      <div className="form-field">
        <label htmlFor={`${id}-instructions`}>{t.instructions}</label>
        <textarea
          id={`${id}-instructions`}
          name="instructions"
          rows={6}
          required
          maxLength={20000}
          defaultValue={editing?.instructions}
          {...describe('instructions', true)}
        />
        <p id={`${id}-instructions-hint`} className="field-hint">
          {t.instructionsHint}
        </p>
        {fieldError('instructions')}
      </div>
      {switchable && (
        <div className="form-field">
          <label className="check">
            <input
              type="checkbox"
              name="enabled"
              defaultChecked={editing ? editing.enabled : true}
              {...describe('enabled')}
            />
            {words.on}
          </label>
          {fieldError('enabled')}
        </div>
      )}
      {error && !field && (
        <p role="alert" tabIndex={-1}>
          {errorText(error)}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onCancel}>
          {shared.cancel}
        </button>
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
