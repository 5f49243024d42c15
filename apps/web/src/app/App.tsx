import { useQueryClient } from '@tanstack/react-query';
import { type MouseEvent, useCallback, useEffect } from 'react';
import { COMPOSER_ID, Chat } from '../features/chat/Chat';
import { CONVERSATIONS_KEY, ConversationList } from '../features/conversations/ConversationList';
import { UserMenu } from '../features/profile/UserMenu';
import { SearchPanel } from '../features/search/SearchPanel';
import { useAuth } from '../lib/auth/auth-context';
import { useMessages } from '../lib/i18n/messages';
import { LanguageSelect } from '../lib/preferences/LanguageSelect';
import { usePath } from '../lib/use-path';
import { webEdition } from '../lib/web-config';
import { CONSOLE_PATH, Console, useConsoleAllowed } from './Console';
import { consoleText } from './console-messages';
import { appText } from './messages';

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
  // Again when the answer ends: the list read when the turn started may predate the conversation's row or title.
  const ended = useCallback(() => void queries.invalidateQueries({ queryKey: CONVERSATIONS_KEY }), [queries]);
  return (
    <div className="workspace">
      <aside className="sidebar">
        <SearchPanel
          onOpen={(conversationId, messageId) => navigate(`/c/${conversationId}?m=${encodeURIComponent(messageId)}`)}
        />
        <ConversationList selected={selected} onSelect={select} />
      </aside>
      <main id="main" className="main" tabIndex={-1}>
        <Chat conversationId={selected} focusMessageId={focusMessageId} onStarted={started} onEnded={ended} />
      </main>
    </div>
  );
}

// The link's own jump would only scroll: the message box gets the focus, as the link promises.
function skipToComposer(event: MouseEvent) {
  const composer = document.getElementById(COMPOSER_ID) ?? document.getElementById('main');
  if (!composer) return;
  event.preventDefault();
  composer.focus();
}

/** Chat or console: the other one is a link in the top bar (the console's only for an admin's token). */
function PlaceLink({ inConsole }: { inConsole: boolean }) {
  const [, navigate] = usePath();
  const t = useMessages(consoleText);
  const allowed = useConsoleAllowed();
  if (!inConsole && !allowed) return null;
  const target = inConsole ? '/' : CONSOLE_PATH;
  return (
    <a
      className="place-link"
      href={target}
      onClick={(event) => {
        event.preventDefault();
        navigate(target);
      }}
    >
      {inConsole ? t.chat : t.console}
    </a>
  );
}

function skipToMain(event: MouseEvent) {
  const main = document.getElementById('main');
  if (!main) return;
  event.preventDefault();
  main.focus();
}

export function App() {
  const { state, signIn } = useAuth();
  const [location] = usePath();
  const t = useMessages(appText);
  const ct = useMessages(consoleText);
  // The Marketplace edition's app is its admin panel: the console only, at every path (that edition has no chat).
  const consoleOnly = webEdition() === 'marketplace';
  const inConsole =
    consoleOnly || location.pathname === CONSOLE_PATH || location.pathname.startsWith(`${CONSOLE_PATH}/`);
  useEffect(() => {
    document.title = t.appName;
  }, [t]);
  if (state.status === 'loading') {
    return (
      <main className="centered" aria-busy="true">
        <p>{t.signingIn}</p>
      </main>
    );
  }
  if (state.status === 'error' || state.status === 'signed-out') {
    return (
      <main className="centered">
        <h1>{t.appName}</h1>
        {state.status === 'error' ? <p role="alert">{t.signInFailed(state.message)}</p> : <p>{t.signedOut}</p>}
        <button type="button" onClick={() => void signIn()}>
          {t.signIn}
        </button>
        <LanguageSelect />
      </main>
    );
  }
  return (
    <div className="shell">
      {inConsole ? (
        <a className="skip-link" href="#main" onClick={skipToMain}>
          {ct.skipToContent}
        </a>
      ) : (
        <a className="skip-link" href={`#${COMPOSER_ID}`} onClick={skipToComposer}>
          {t.skipToComposer}
        </a>
      )}
      <header className="top-bar">
        <h1>{inConsole ? `${t.appName} · ${ct.console}` : t.appName}</h1>
        {!consoleOnly && <PlaceLink inConsole={inConsole} />}
        <UserMenu />
      </header>
      {inConsole ? <Console /> : <Workspace />}
    </div>
  );
}
