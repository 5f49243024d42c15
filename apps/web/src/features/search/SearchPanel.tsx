import { useInfiniteQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useAuth } from '../../lib/auth/auth-context';
import { useFormats } from '../../lib/i18n/format';
import { useMessages } from '../../lib/i18n/messages';
import { searchMessages } from './api';
import { searchText } from './messages';
import { snippetNodes } from './snippet';

interface Props {
  /** Opens the conversation at the message found. */
  onOpen(conversationId: string, messageId: string): void;
}

/** Message search over the user's conversations; a result opens its message in place. */
export function SearchPanel({ onOpen }: Props) {
  const auth = useAuth();
  const t = useMessages(searchText);
  const format = useFormats();
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState('');
  const results = useInfiniteQuery({
    queryKey: ['search', query],
    enabled: query.length > 0,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => searchMessages(await auth.accessToken(), query, pageParam),
    getNextPageParam: (last) => (last.hasMore ? last.cursor : undefined),
  });
  const found = results.data?.pages.flatMap((page) => page.results) ?? [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setQuery(draft.trim());
  };

  return (
    <section className="search" aria-label={t.searchMessages}>
      <form role="search" onSubmit={submit} className="search-form">
        <label htmlFor="search-q" className="visually-hidden">
          {t.searchMessages}
        </label>
        <input
          id="search-q"
          type="search"
          maxLength={200}
          placeholder={t.searchMessages}
          value={draft}
          onChange={(event) => {
            setDraft(event.target.value);
            if (!event.target.value) setQuery('');
          }}
        />
        <button type="submit" disabled={!draft.trim()}>
          {t.search}
        </button>
      </form>
      {results.error && <p role="alert">{results.error.message}</p>}
      {query && results.isSuccess && (
        <ul className="search-results" aria-label={t.searchResults}>
          {found.length === 0 && <li className="muted">{t.nothingFound}</li>}
          {found.map((result) => (
            <li key={result.messageId}>
              <button
                type="button"
                className="search-result"
                onClick={() => onOpen(result.conversationId, result.messageId)}
              >
                <span className="search-result-title">{result.conversationTitle}</span>
                <span className="search-result-snippet">{snippetNodes(result.snippet)}</span>
                <time
                  className="search-result-time"
                  dateTime={result.createdAt}
                  title={format.dateTime(result.createdAt)}
                >
                  {format.relativeTime(result.createdAt)}
                </time>
              </button>
            </li>
          ))}
          {results.hasNextPage && (
            <li>
              <button type="button" onClick={() => void results.fetchNextPage()} disabled={results.isFetchingNextPage}>
                {t.moreResults}
              </button>
            </li>
          )}
        </ul>
      )}
    </section>
  );
}
