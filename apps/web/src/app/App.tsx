import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { Chat } from '../features/chat/Chat';
import { CONVERSATIONS_KEY, ConversationList } from '../features/conversations/ConversationList';
import { UserMenu } from '../features/profile/UserMenu';
import { SearchPanel } from '../features/search/SearchPanel';
import { useAuth } from '../lib/auth/auth-context';
import { usePath } from '../lib/use-path';

const CONVERSATION_PATH = /^\/c\/([0-9a-f-]{36})$/;

/** The signed-in screen: conversations beside the chat, the open one in the URL (`/c/<id>`). */
function Workspace() {
  const [location, navigate] = usePath();
  const queries = useQueryClient();
  const selected = CONVERSATION_PATH.exec(location.pathname)?.[1];
  // A search result opens its conversation at the message (`?m=<message id>`).
  const focusMessageId = selected ? (location.searchParams.get('m') ?? undefined) : undefined;
  const select = useCallback(
    (conversationId: string | undefined) => navigate(conversationId ? `/c/${conversationId}` : '/'),
    [navigate],
  );
  const started = useCallback(
    (conversationId: string) => {
      navigate(`/c/${conversationId}`, { replace: true });
      void queries.invalidateQueries({ queryKey: CONVERSATIONS_KEY });
    },
    [navigate, queries],
  );
  return (
    <div className="workspace">
      <aside className="sidebar">
        <SearchPanel
          onOpen={(conversationId, messageId) => navigate(`/c/${conversationId}?m=${encodeURIComponent(messageId)}`)}
        />
        <ConversationList selected={selected} onSelect={select} />
      </aside>
      <main id="main" className="main">
        <Chat conversationId={selected} focusMessageId={focusMessageId} onStarted={started} />
      </main>
    </div>
  );
}

export function App() {
  const { state, signIn } = useAuth();
  if (state.status === 'loading') {
    return (
      <main className="centered" aria-busy="true">
        <p>Signing in…</p>
      </main>
    );
  }
  if (state.status === 'error' || state.status === 'signed-out') {
    return (
      <main className="centered">
        <h1>Federation agent</h1>
        {state.status === 'error' ? <p role="alert">Sign-in failed: {state.message}</p> : <p>You are signed out.</p>}
        <button type="button" onClick={() => void signIn()}>
          Sign in
        </button>
      </main>
    );
  }
  return (
    <div className="shell">
      <header className="top-bar">
        <h1>Federation agent</h1>
        <UserMenu />
      </header>
      <Workspace />
    </div>
  );
}
