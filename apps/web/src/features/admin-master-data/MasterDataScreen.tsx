import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ApiRequestError, errorText } from '../../lib/api';
import { useAuth } from '../../lib/auth/auth-context';
import { useMessages } from '../../lib/i18n/messages';
import { ConfirmDialog } from '../../lib/ui/ConfirmDialog';
import { ModalDialog } from '../../lib/ui/ModalDialog';
import {
  type MasterEntry,
  type MasterKind,
  USERS_MASTER_KEY,
  createMaster,
  deleteMaster,
  listMaster,
  masterKey,
  refusedField,
  relabelMaster,
} from './api';
import { masterDataText } from './messages';
import './master-data.css';

type Texts = ReturnType<typeof useMessages<typeof masterDataText.en>>;

/** The API's refusal as it says it, with its code (`conflict`, `platform_entry_read_only`, ...). */
interface Target {
  kind: MasterKind;
  entry: MasterEntry;
}

/**
 * Master data (document 3, `master:manage`): the organizations and job types the caller's tenant sees. The
 * tenant's own entries are renamed and deleted here; the platform-wide ones are listed read-only.
 */
export function MasterDataScreen() {
  const auth = useAuth();
  const t = useMessages(masterDataText);
  const queries = useQueryClient();
  const [done, setDone] = useState('');
  const [editing, setEditing] = useState<Target | undefined>();
  const [deleting, setDeleting] = useState<Target | undefined>();
  // After a delete the row and its button are gone: the focus goes to the screen's heading.
  const heading = useRef<HTMLHeadingElement>(null);
  const [deletions, setDeletions] = useState(0);
  useEffect(() => {
    if (deletions > 0) heading.current?.focus();
  }, [deletions]);

  const changed = (kind: MasterKind) => {
    void queries.invalidateQueries({ queryKey: masterKey(kind) });
    void queries.invalidateQueries({ queryKey: USERS_MASTER_KEY });
  };
  const remove = useMutation({
    mutationFn: async ({ kind, entry }: Target) => deleteMaster(await auth.accessToken(), kind, entry.code),
    onSuccess: (_result, { kind, entry }) => {
      setDone(t.deleted(entry.code));
      setDeleting(undefined);
      setDeletions((count) => count + 1);
      changed(kind);
    },
  });

  const kinds: { kind: MasterKind; title: string; addTitle: string }[] = [
    { kind: 'organizations', title: t.organizations, addTitle: t.addOrganization },
    { kind: 'jobTypes', title: t.jobTypes, addTitle: t.addJobType },
  ];

  return (
    <section className="console-screen" aria-labelledby="master-data-title">
      <h2 id="master-data-title" ref={heading} tabIndex={-1}>
        {t.masterData}
      </h2>
      <p role="status" className="console-status">
        {done}
      </p>
      {kinds.map(({ kind, title, addTitle }) => (
        <MasterKindPart
          key={kind}
          kind={kind}
          title={title}
          addTitle={addTitle}
          t={t}
          onStart={() => setDone('')}
          onAdded={(entry) => {
            setDone(t.added(entry.code));
            changed(kind);
          }}
          onEdit={(entry) => {
            setDone('');
            setEditing({ kind, entry });
          }}
          onDelete={(entry) => {
            setDone('');
            setDeleting({ kind, entry });
          }}
        />
      ))}

      <ModalDialog
        open={editing !== undefined}
        title={editing ? t.editTitle(editing.entry.code) : ''}
        className="md-dialog"
        onClose={() => setEditing(undefined)}
      >
        {editing && (
          <RenameForm
            target={editing}
            t={t}
            onCancel={() => setEditing(undefined)}
            onSaved={(entry) => {
              setDone(t.renamed(entry.code));
              setEditing(undefined);
              changed(editing.kind);
            }}
          />
        )}
      </ModalDialog>

      <ConfirmDialog
        open={deleting !== undefined}
        title={t.delete}
        confirmLabel={t.delete}
        cancelLabel={t.cancel}
        destructive
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onCancel={() => {
          setDeleting(undefined);
          remove.reset();
        }}
      >
        {deleting && <p>{t.confirmDelete(deleting.entry.label, deleting.entry.code)}</p>}
        {remove.error && <p role="alert">{errorText(remove.error)}</p>}
      </ConfirmDialog>
    </section>
  );
}

function MasterKindPart({
  kind,
  title,
  addTitle,
  t,
  onStart,
  onAdded,
  onEdit,
  onDelete,
}: {
  kind: MasterKind;
  title: string;
  addTitle: string;
  t: Texts;
  /** A new add was asked for: the last outcome no longer applies. */
  onStart(): void;
  onAdded(entry: MasterEntry): void;
  onEdit(entry: MasterEntry): void;
  onDelete(entry: MasterEntry): void;
}) {
  const auth = useAuth();
  const id = useId();
  const list = useQuery({
    queryKey: masterKey(kind),
    queryFn: async () => listMaster(await auth.accessToken(), kind),
  });
  const entries = list.data ?? [];
  return (
    <div className="md-kind" data-kind={kind}>
      <h3 id={`${id}-title`}>{title}</h3>
      {list.error && <p role="alert">{errorText(list.error)}</p>}
      {list.data && entries.length === 0 && <p className="muted">{t.noEntries}</p>}
      {entries.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-labelledby={`${id}-title`}>
          <table className="console-table md-table">
            <thead>
              <tr>
                <th scope="col">{t.code}</th>
                <th scope="col">{t.name}</th>
                <th scope="col">{t.scope}</th>
                <th scope="col">{t.actions}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.code} data-code={entry.code} data-platform-wide={entry.platformWide}>
                  <th scope="row">{entry.code}</th>
                  <td className="wrap">{entry.label}</td>
                  <td>{entry.platformWide ? t.platformWide : t.thisTenant}</td>
                  <td>
                    {entry.platformWide ? (
                      <span className="muted">{t.readOnly}</span>
                    ) : (
                      <div className="row-actions" role="group" aria-label={t.actionsFor(entry.code)}>
                        <button type="button" data-action="edit" onClick={() => onEdit(entry)}>
                          {t.editName}
                        </button>
                        <button
                          type="button"
                          data-action="delete"
                          className="destructive"
                          onClick={() => onDelete(entry)}
                        >
                          {t.delete}
                        </button>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AddForm kind={kind} title={addTitle} t={t} onStart={onStart} onAdded={onAdded} />
    </div>
  );
}

function AddForm({
  kind,
  title,
  t,
  onStart,
  onAdded,
}: {
  kind: MasterKind;
  title: string;
  t: Texts;
  onStart(): void;
  onAdded(entry: MasterEntry): void;
}) {
  const auth = useAuth();
  const id = useId();
  const add = useMutation({
    mutationFn: async ({ code, label }: { code: string; label: string }) =>
      createMaster(await auth.accessToken(), kind, code, label),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    onStart();
    add.mutate(
      { code: String(data.get('code') ?? '').trim(), label: String(data.get('label') ?? '') },
      {
        onSuccess: (entry) => {
          form.reset();
          onAdded(entry);
        },
      },
    );
  };
  const field = add.error ? refusedField(add.error) : undefined;
  // The refused field takes the focus, so its refusal is read with it.
  useEffect(() => {
    if (field) document.getElementById(`${id}-${field}`)?.focus();
  }, [add.error, field, id]);
  const refusal = add.error
    ? add.error instanceof ApiRequestError && add.error.status === 409
      ? t.codeTaken(add.variables?.code ?? '')
      : errorText(add.error)
    : '';
  const describedBy = (name: 'code' | 'label', hint?: string) =>
    [hint, field === name ? `${id}-${name}-error` : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <form className="md-form" aria-labelledby={`${id}-title`} onSubmit={submit}>
      <h4 id={`${id}-title`}>{title}</h4>
      <label htmlFor={`${id}-code`}>{t.code}</label>
      <input
        id={`${id}-code`}
        name="code"
        required
        maxLength={50}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={field === 'code' ? true : undefined}
        aria-describedby={describedBy('code', `${id}-code-hint`)}
      />
      <small id={`${id}-code-hint`} className="muted">
        {t.codeHint}
      </small>
      {field === 'code' && (
        <p id={`${id}-code-error`} role="alert" className="field-error">
          {refusal}
        </p>
      )}
      <label htmlFor={`${id}-label`}>{t.name}</label>
      <input
        id={`${id}-label`}
        name="label"
        required
        maxLength={200}
        autoComplete="off"
        aria-invalid={field === 'label' ? true : undefined}
        aria-describedby={describedBy('label')}
      />
      {field === 'label' && (
        <p id={`${id}-label-error`} role="alert" className="field-error">
          {refusal}
        </p>
      )}
      {add.error && field === undefined && <p role="alert">{refusal}</p>}
      <button type="submit" disabled={add.isPending}>
        {t.add}
      </button>
    </form>
  );
}

function RenameForm({
  target,
  t,
  onCancel,
  onSaved,
}: {
  target: Target;
  t: Texts;
  onCancel(): void;
  onSaved(entry: MasterEntry): void;
}) {
  const auth = useAuth();
  const id = useId();
  const save = useMutation({
    mutationFn: async (label: string) => relabelMaster(await auth.accessToken(), target.kind, target.entry.code, label),
    onSuccess: onSaved,
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    save.mutate(String(new FormData(event.currentTarget).get('label') ?? ''));
  };
  return (
    <form onSubmit={submit}>
      <label htmlFor={`${id}-label`}>{t.name}</label>
      <input
        id={`${id}-label`}
        name="label"
        required
        maxLength={200}
        autoComplete="off"
        defaultValue={target.entry.label}
        data-autofocus
        aria-invalid={save.error ? true : undefined}
        aria-describedby={save.error ? `${id}-error` : undefined}
      />
      {save.error && (
        <p id={`${id}-error`} role="alert" className="field-error">
          {errorText(save.error)}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onCancel}>
          {t.cancel}
        </button>
        <button type="submit" disabled={save.isPending}>
          {t.save}
        </button>
      </div>
    </form>
  );
}
