import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useAuth } from '../../lib/auth/auth-context';
import { useMessages } from '../../lib/i18n/messages';
import {
  type Conversation,
  type ListMode,
  deleteConversation,
  listConversations,
  renameConversation,
  restoreConversation,
} from './api';
import { conversationsText } from './messages';

export const CONVERSATIONS_KEY = ['conversations'] as const;

interface Props {
  selected?: string;
  onSelect(conversationId: string | undefined): void;
}

/** The sidebar: the user's conversations, newest first, a page at a time as it scrolls; the archive beside them. */
export function ConversationList({ selected, onSelect }: Props) {
  const auth = useAuth();
  const t = useMessages(conversationsText);
  const [mode, setMode] = useState<ListMode>('active');
  const pages = useInfiniteQuery({
    queryKey: [...CONVERSATIONS_KEY, mode],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => listConversations(await auth.accessToken(), mode, pageParam),
    getNextPageParam: (last) => (last.hasMore ? last.cursor : undefined),
  });
  const conversations = pages.data?.pages.flatMap((page) => page.conversations) ?? [];

  // Infinite scroll: the next page loads when the end of the list comes into view.
  const end = useRef<HTMLLIElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  useEffect(() => {
    const target = end.current;
    if (!target || !hasNextPage) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
    });
    observer.observe(target);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  return (
    <nav className="conversations" aria-label={t.conversations}>
      <button type="button" className="new-chat" onClick={() => onSelect(undefined)}>
        {t.newChat}
      </button>
      <div className="modes" role="group" aria-label={t.whichConversations}>
        <button type="button" aria-pressed={mode === 'active'} onClick={() => setMode('active')}>
          {t.chats}
        </button>
        <button type="button" aria-pressed={mode === 'archive'} onClick={() => setMode('archive')}>
          {t.archive}
        </button>
      </div>
      {pages.error && <p role="alert">{pages.error.message}</p>}
      <ul className="conversation-list">
        {conversations.map((conversation) => (
          <ConversationItem
            key={conversation.conversationId}
            conversation={conversation}
            archived={mode === 'archive'}
            current={conversation.conversationId === selected}
            onSelect={onSelect}
          />
        ))}
        <li ref={end} aria-hidden="true" className="list-end" />
      </ul>
      {pages.isSuccess && conversations.length === 0 && (
        <p className="muted">{mode === 'archive' ? t.archiveEmpty : t.noConversations}</p>
      )}
    </nav>
  );
}

function ConversationItem({
  conversation,
  archived,
  current,
  onSelect,
}: {
  conversation: Conversation;
  archived: boolean;
  current: boolean;
  onSelect(conversationId: string | undefined): void;
}) {
  const auth = useAuth();
  const t = useMessages(conversationsText);
  const queries = useQueryClient();
  const [renaming, setRenaming] = useState(false);
  const [title, setTitle] = useState(conversation.title);
  const refresh = () => queries.invalidateQueries({ queryKey: CONVERSATIONS_KEY });
  const { conversationId } = conversation;
  const rename = useMutation({
    mutationFn: async (next: string) => renameConversation(await auth.accessToken(), conversationId, next),
    onSuccess: () => {
      setRenaming(false);
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: async () => deleteConversation(await auth.accessToken(), conversationId),
    onSuccess: () => {
      if (current) onSelect(undefined);
      void refresh();
    },
  });
  const restore = useMutation({
    mutationFn: async () => restoreConversation(await auth.accessToken(), conversationId),
    onSuccess: () => void refresh(),
  });
  const error = rename.error ?? remove.error ?? restore.error;
  const shownTitle = conversation.title || t.untitled;

  // Focus goes back to the Rename button when the form closes (saved or Escape), not to the page's start.
  const renameButton = useRef<HTMLButtonElement>(null);
  const wasRenaming = useRef(false);
  useEffect(() => {
    if (wasRenaming.current && !renaming) renameButton.current?.focus();
    wasRenaming.current = renaming;
  }, [renaming]);

  const submitRename = (event: FormEvent) => {
    event.preventDefault();
    const next = title.trim();
    if (next) rename.mutate(next);
  };

  return (
    <li className="conversation-item" data-conversation-id={conversationId}>
      {renaming ? (
        <form onSubmit={submitRename} className="rename">
          <label htmlFor={`title-${conversationId}`} className="visually-hidden">
            {t.title}
          </label>
          <input
            id={`title-${conversationId}`}
            value={title}
            maxLength={200}
            autoFocus
            // Typing replaces the old title; the arrow keys keep it.
            onFocus={(event) => event.target.select()}
            onChange={(event) => setTitle(event.target.value)}
            onKeyDown={(event) => event.key === 'Escape' && setRenaming(false)}
          />
          <button type="submit">{t.save}</button>
        </form>
      ) : (
        <button
          type="button"
          className="conversation-title"
          aria-current={current ? 'page' : undefined}
          onClick={() => onSelect(conversationId)}
        >
          {shownTitle}
        </button>
      )}
      {archived ? (
        <button type="button" aria-label={t.restoreNamed(shownTitle)} onClick={() => restore.mutate()}>
          {t.restore}
        </button>
      ) : (
        !renaming && (
          <>
            <button
              ref={renameButton}
              type="button"
              aria-label={t.renameNamed(shownTitle)}
              onClick={() => {
                setTitle(conversation.title);
                setRenaming(true);
              }}
            >
              {t.rename}
            </button>
            <button
              type="button"
              aria-label={t.deleteNamed(shownTitle)}
              onClick={() => window.confirm(t.confirmDelete(shownTitle)) && remove.mutate()}
            >
              {t.delete}
            </button>
          </>
        )
      )}
      {error && <p role="alert">{error.message}</p>}
    </li>
  );
}
