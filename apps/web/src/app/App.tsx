import { useAuth } from '../lib/auth/auth-context';
import { Chat } from '../features/chat/Chat';
import { UserMenu } from '../features/profile/UserMenu';

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
      <main className="workspace" id="main">
        <Chat />
      </main>
    </div>
  );
}
