import { type ReactNode } from 'react';
import { ClientsScreen } from '../features/admin-clients/ClientsScreen';
import { ToolServersScreen } from '../features/admin-catalog/ToolServersScreen';
import { LogsScreen } from '../features/admin-logs/LogsScreen';
import { UsageScreen } from '../features/admin-usage/UsageScreen';
import { KeysScreen } from '../features/admin-keys/KeysScreen';
import { UsersScreen } from '../features/admin-users/UsersScreen';
import { useMe } from '../features/profile/use-me';
import { useAuth } from '../lib/auth/auth-context';
import { grantedScopes, holdsAny } from '../lib/auth/scopes';
import { useMessages } from '../lib/i18n/messages';
import { usePath } from '../lib/use-path';
import { consoleText } from './console-messages';
import './console.css';

export const CONSOLE_PATH = '/console';

type Texts = (typeof consoleText)['en'];

/** A screen of the console, shown to a token holding one of `anyOf` (the scopes of the routes it calls). */
interface Section {
  slug: string;
  anyOf: readonly string[];
  title(t: Texts): string;
  render(context: { scopes: ReadonlySet<string>; selfId?: string }): ReactNode;
}

const SECTIONS: readonly Section[] = [
  {
    slug: 'users',
    anyOf: ['users:read', 'users:manage'],
    title: (t) => t.users,
    render: ({ scopes, selfId }) => <UsersScreen selfId={selfId} canManage={scopes.has('users:manage')} />,
  },
  {
    slug: 'logs',
    anyOf: ['logs:read'],
    title: (t) => t.logs,
    render: () => <LogsScreen />,
  },
  {
    slug: 'tool-servers',
    anyOf: ['platform:manage'],
    title: (t) => t.toolServers,
    render: () => <ToolServersScreen />,
  },
  {
    slug: 'usage',
    anyOf: ['logs:read', 'platform:manage'],
    title: (t) => t.usage,
    render: ({ scopes }) => <UsageScreen canPickTenant={scopes.has('platform:manage')} />,
  },
  {
    slug: 'clients',
    anyOf: ['platform:manage'],
    title: (t) => t.clients,
    render: () => <ClientsScreen />,
  },
  {
    slug: 'keys',
    anyOf: ['platform:manage'],
    title: (t) => t.apiKeys,
    render: () => <KeysScreen />,
  },
];

/** Whether the signed-in user may open the console at all (the top bar's link). */
export function useConsoleAllowed(): boolean {
  const { state } = useAuth();
  const scopes = grantedScopes(state);
  return SECTIONS.some((section) => holdsAny(scopes, section.anyOf));
}

/** The operator console (`/console/<section>`): its own navigation, each screen over the admin HTTP APIs. */
export function Console() {
  const { state } = useAuth();
  const t = useMessages(consoleText);
  const [location, navigate] = usePath();
  const me = useMe();
  const scopes = grantedScopes(state);
  const allowed = SECTIONS.filter((section) => holdsAny(scopes, section.anyOf));
  const slug = location.pathname.slice(CONSOLE_PATH.length + 1).split('/')[0];
  const current = allowed.find((section) => section.slug === slug) ?? allowed[0];

  if (!current) {
    return (
      <main id="main" className="console-main" tabIndex={-1}>
        <p role="alert">{t.notAllowed}</p>
      </main>
    );
  }
  return (
    <div className="console">
      <nav className="console-nav" aria-label={t.sections}>
        <ul>
          {allowed.map((section) => (
            <li key={section.slug}>
              <a
                href={`${CONSOLE_PATH}/${section.slug}`}
                aria-current={section === current ? 'page' : undefined}
                onClick={(event) => {
                  event.preventDefault();
                  navigate(`${CONSOLE_PATH}/${section.slug}`);
                }}
              >
                {section.title(t)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="console-main" tabIndex={-1}>
        {current.render({ scopes, selfId: me.data?.userId })}
      </main>
    </div>
  );
}
