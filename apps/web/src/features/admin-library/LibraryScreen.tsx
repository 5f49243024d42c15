import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { ApiRequestError, errorText } from '../../lib/api';
import { useAuth } from '../../lib/auth/auth-context';
import { useFormats } from '../../lib/i18n/format';
import { useMessages } from '../../lib/i18n/messages';
import { ConfirmDialog } from '../../lib/ui/ConfirmDialog';
import {
  LIBRARY_KEY,
  type LibraryField,
  type LibraryItem,
  addLibraryTemplate,
  deleteLibraryItem,
  listLibrary,
  refusedField,
  uploadLibraryFile,
} from './api';
import { libraryText } from './messages';
import './library.css';

type Texts = ReturnType<typeof useMessages<typeof libraryText.en>>;

/** The API's refusal as it says it, with its code (`conflict`, `invalid_parameter`, ...). */
/** A refusal in words: a taken filepath in the page's language, the rest as the API says it. */
function refusalText(t: Texts, error: Error, filepath: string): string {
  return error instanceof ApiRequestError && error.status === 409 ? t.pathTaken(filepath) : errorText(error);
}

/**
 * The library (`platform:manage`): the platform-wide files and prompt templates users attach to a message;
 * publish a file (uploaded as multipart) or a template, and delete an item.
 */
export function LibraryScreen() {
  const auth = useAuth();
  const t = useMessages(libraryText);
  const formats = useFormats();
  const queries = useQueryClient();
  const [page, setPage] = useState(1);
  const [deleting, setDeleting] = useState<LibraryItem | undefined>();
  const [done, setDone] = useState('');
  // After a delete the row and its button are gone: the focus goes to the screen's heading.
  const heading = useRef<HTMLHeadingElement>(null);
  const [deletions, setDeletions] = useState(0);
  useEffect(() => {
    if (deletions > 0) heading.current?.focus();
  }, [deletions]);

  const list = useQuery({
    queryKey: [...LIBRARY_KEY, page],
    queryFn: async () => listLibrary(await auth.accessToken(), page),
    placeholderData: keepPreviousData,
  });
  const refreshed = () => queries.invalidateQueries({ queryKey: LIBRARY_KEY });
  const remove = useMutation({
    mutationFn: async (item: LibraryItem) => deleteLibraryItem(await auth.accessToken(), item.itemId),
    onSuccess: (_result, item) => {
      setDone(t.deleted(item.filepath));
      setDeleting(undefined);
      setDeletions((count) => count + 1);
      void refreshed();
    },
  });
  const added = (item: LibraryItem) => {
    setDone(t.added(item.filepath));
    void refreshed();
  };

  const items = list.data?.items ?? [];
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / list.data.limit)) : 1;

  return (
    <section className="console-screen" aria-labelledby="library-title">
      <h2 id="library-title" ref={heading} tabIndex={-1}>
        {t.library}
      </h2>
      <p role="status" className="console-status">
        {done}
      </p>
      {list.error && <p role="alert">{errorText(list.error)}</p>}
      {list.data && items.length === 0 && <p className="muted">{t.empty}</p>}
      {items.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-labelledby="library-title">
          <table className="console-table lib-table">
            <thead>
              <tr>
                <th scope="col">{t.filepath}</th>
                <th scope="col">{t.title}</th>
                <th scope="col">{t.kind}</th>
                <th scope="col">{t.mimeType}</th>
                <th scope="col">{t.size}</th>
                <th scope="col">{t.updated}</th>
                <th scope="col">{t.actions}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.itemId} data-item-id={item.itemId} data-filepath={item.filepath}>
                  <th scope="row">{item.filepath}</th>
                  <td className="wrap">
                    {item.title}
                    {item.description && (
                      <>
                        <br />
                        <span className="muted">{item.description}</span>
                      </>
                    )}
                  </td>
                  <td>{item.kind === 'file' ? t.kindFile : t.kindTemplate}</td>
                  <td>{item.mimeType}</td>
                  <td>{formats.bytes(item.bytes)}</td>
                  <td>
                    <time dateTime={item.updatedAt}>{formats.dateTime(item.updatedAt)}</time>
                  </td>
                  <td>
                    <div className="row-actions" role="group" aria-label={t.actionsFor(item.filepath)}>
                      <button
                        type="button"
                        data-action="delete"
                        className="destructive"
                        onClick={() => {
                          setDone('');
                          setDeleting(item);
                        }}
                      >
                        {t.delete}
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && (pages > 1 || page > 1) && (
        <nav className="pager" aria-label={t.pages}>
          <button type="button" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
            {t.previous}
          </button>
          <span aria-live="polite">{t.pageOf(list.data.page, pages, list.data.total)}</span>
          <button type="button" disabled={!list.data.hasMore} onClick={() => setPage((p) => p + 1)}>
            {t.next}
          </button>
        </nav>
      )}

      <AddFile t={t} onStart={() => setDone('')} onAdded={added} />
      <AddTemplate t={t} onStart={() => setDone('')} onAdded={added} />

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
        {deleting && <p>{t.confirmDelete(deleting.filepath)}</p>}
        {remove.error && <p role="alert">{errorText(remove.error)}</p>}
      </ConfirmDialog>
    </section>
  );
}

interface AddProps {
  t: Texts;
  /** A new add was asked for: the last outcome no longer applies. */
  onStart(): void;
  onAdded(item: LibraryItem): void;
}

/** The id of a form's control for a field (where its refusal moves the focus). */
const fieldId = (form: string, field: LibraryField) => `${form}-${field}`;

/** A labelled control with its hint and, when the API refused this field, the refusal under it. */
function Field({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  label: string;
  hint?: string;
  error?: string;
  children(describedBy: string | undefined, invalid: true | undefined): ReactNode;
}) {
  const describedBy = [hint ? `${id}-hint` : undefined, error ? `${id}-error` : undefined].filter(Boolean).join(' ');
  return (
    <>
      <label htmlFor={id}>{label}</label>
      {children(describedBy || undefined, error ? true : undefined)}
      {hint && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
      {error && (
        <p id={`${id}-error`} role="alert" className="field-error">
          {error}
        </p>
      )}
    </>
  );
}

/** Where a refusal goes: under its field, or under the form when it names none. */
function useRefusal(t: Texts, error: Error | null, filepath: string, idOf: (field: LibraryField) => string) {
  const field = error ? refusedField(error) : undefined;
  const text = error ? refusalText(t, error, filepath) : '';
  const target = field ? idOf(field) : undefined;
  // The refused field takes the focus, so its refusal is read with it.
  useEffect(() => {
    if (target) document.getElementById(target)?.focus();
  }, [error, target]);
  return {
    at: (name: LibraryField) => (field === name ? text : undefined),
    form: error && field === undefined ? text : undefined,
  };
}

function AddFile({ t, onStart, onAdded }: AddProps) {
  const auth = useAuth();
  const id = useId();
  const add = useMutation({
    mutationFn: async (input: Parameters<typeof uploadLibraryFile>[1]) =>
      uploadLibraryFile(await auth.accessToken(), input),
  });
  const refusal = useRefusal(t, add.error, add.variables?.filepath ?? '', (field) => fieldId(id, field));
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const file = data.get('file');
    if (!(file instanceof Blob)) return;
    onStart();
    add.mutate(
      {
        filepath: text('filepath'),
        title: text('title') || undefined,
        description: text('description') || undefined,
        mimeType: text('mimeType') || undefined,
        file,
      },
      {
        onSuccess: (item) => {
          form.reset();
          onAdded(item);
        },
      },
    );
  };
  return (
    <form className="lib-form" aria-labelledby={`${id}-heading`} onSubmit={submit} data-form="file">
      <h3 id={`${id}-heading`}>{t.addFile}</h3>
      <Field id={fieldId(id, 'file')} label={t.file} error={refusal.at('file')}>
        {(describedBy, invalid) => (
          <input
            id={fieldId(id, 'file')}
            name="file"
            type="file"
            required
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field id={fieldId(id, 'filepath')} label={t.filepath} hint={t.filepathHint} error={refusal.at('filepath')}>
        {(describedBy, invalid) => (
          <input
            id={fieldId(id, 'filepath')}
            name="filepath"
            required
            maxLength={255}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field id={fieldId(id, 'title')} label={t.title} hint={t.fileTitleHint} error={refusal.at('title')}>
        {(describedBy, invalid) => (
          <input
            id={fieldId(id, 'title')}
            name="title"
            maxLength={200}
            autoComplete="off"
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field id={fieldId(id, 'description')} label={t.description} error={refusal.at('description')}>
        {(describedBy, invalid) => (
          <input
            id={fieldId(id, 'description')}
            name="description"
            maxLength={2000}
            autoComplete="off"
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field id={fieldId(id, 'mimeType')} label={t.mimeType} hint={t.mimeTypeHint} error={refusal.at('mimeType')}>
        {(describedBy, invalid) => (
          <input
            id={fieldId(id, 'mimeType')}
            name="mimeType"
            autoComplete="off"
            spellCheck={false}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      {refusal.form && <p role="alert">{refusal.form}</p>}
      <button type="submit" disabled={add.isPending}>
        {t.add}
      </button>
    </form>
  );
}

function AddTemplate({ t, onStart, onAdded }: AddProps) {
  const auth = useAuth();
  const id = useId();
  const add = useMutation({
    mutationFn: async (input: Parameters<typeof addLibraryTemplate>[1]) =>
      addLibraryTemplate(await auth.accessToken(), input),
  });
  const refusal = useRefusal(t, add.error, add.variables?.filepath ?? '', (field) => fieldId(id, field));
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '');
    onStart();
    add.mutate(
      {
        filepath: text('filepath').trim(),
        title: text('title').trim(),
        text: text('text'),
        ...(text('description').trim() === '' ? {} : { description: text('description').trim() }),
      },
      {
        onSuccess: (item) => {
          form.reset();
          onAdded(item);
        },
      },
    );
  };
  return (
    <form className="lib-form" aria-labelledby={`${id}-heading`} onSubmit={submit} data-form="template">
      <h3 id={`${id}-heading`}>{t.addTemplate}</h3>
      <Field id={fieldId(id, 'filepath')} label={t.filepath} hint={t.filepathHint} error={refusal.at('filepath')}>
        {(describedBy, invalid) => (
          <input
            id={fieldId(id, 'filepath')}
            name="filepath"
            required
            maxLength={255}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field id={fieldId(id, 'title')} label={t.title} error={refusal.at('title')}>
        {(describedBy, invalid) => (
          <input
            id={fieldId(id, 'title')}
            name="title"
            required
            maxLength={200}
            autoComplete="off"
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field id={fieldId(id, 'text')} label={t.text} error={refusal.at('text')}>
        {(describedBy, invalid) => (
          <textarea
            id={fieldId(id, 'text')}
            name="text"
            required
            rows={5}
            maxLength={100_000}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field id={fieldId(id, 'description')} label={t.description} error={refusal.at('description')}>
        {(describedBy, invalid) => (
          <input
            id={fieldId(id, 'description')}
            name="description"
            maxLength={2000}
            autoComplete="off"
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      {refusal.form && <p role="alert">{refusal.form}</p>}
      <button type="submit" disabled={add.isPending}>
        {t.add}
      </button>
    </form>
  );
}
