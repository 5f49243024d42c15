import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useAuth } from '../../lib/auth/auth-context';
import {
  type Conversation,
  type ListMode,
  deleteConversation,
  listConversations,
  renameConversation,
  restoreConversation,
} from './api';

export const CONVERSATIONS_KEY = ['conversations'] as const;

interface Props {
  selected?: string;
  onSelect(conversationId: string | undefined): void;
}

/** The sidebar: the user's conversations, newest first, a page at a time as it scrolls; the archive beside them. */
export function ConversationList({ selected, onSelect }: Props) {
  const auth = useAuth();
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
    <nav className="conversations" aria-label="Conversations">
      <button type="button" className="new-chat" onClick={() => onSelect(undefined)}>
        New chat
      </button>
      <div className="modes" role="group" aria-label="Which conversations">
        <button type="button" aria-pressed={mode === 'active'} onClick={() => setMode('active')}>
          Chats
        </button>
        <button type="button" aria-pressed={mode === 'archive'} onClick={() => setMode('archive')}>
          Archive
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
        <p className="muted">{mode === 'archive' ? 'The archive is empty.' : 'No conversations yet.'}</p>
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
            Title
          </label>
          <input
            id={`title-${conversationId}`}
            value={title}
            maxLength={200}
            autoFocus
            onChange={(event) => setTitle(event.target.value)}
            onKeyDown={(event) => event.key === 'Escape' && setRenaming(false)}
          />
          <button type="submit">Save</button>
        </form>
      ) : (
        <button
          type="button"
          className="conversation-title"
          aria-current={current ? 'page' : undefined}
          onClick={() => onSelect(conversationId)}
        >
          {conversation.title || 'Untitled'}
        </button>
      )}
      {archived ? (
        <button type="button" onClick={() => restore.mutate()}>
          Restore
        </button>
      ) : (
        !renaming && (
          <>
            <button type="button" aria-label={`Rename ${conversation.title}`} onClick={() => setRenaming(true)}>
              Rename
            </button>
            <button
              type="button"
              aria-label={`Delete ${conversation.title}`}
              onClick={() => window.confirm(`Delete “${conversation.title}”?`) && remove.mutate()}
            >
              Delete
            </button>
          </>
        )
      )}
      {error && <p role="alert">{error.message}</p>}
    </li>
  );
}
