import { type ComponentType, type ReactNode, Suspense, lazy } from 'react';
import { useMe } from '../features/profile/use-me';
import { useAuth } from '../lib/auth/auth-context';
import { grantedScopes, holdsAny } from '../lib/auth/scopes';
import { useMessages } from '../lib/i18n/messages';
import { usePath } from '../lib/use-path';
import { type Edition, webEdition } from '../lib/web-config';
import { consoleText } from './console-messages';
import './console.css';

export const CONSOLE_PATH = '/console';

type Texts = (typeof consoleText)['en'];

/** What every screen is given. */
interface ScreenProps {
  scopes: ReadonlySet<string>;
  selfId?: string;
}

/**
 * A screen loaded when first opened: the chat's first bundle carries none of the console's screens, and a user
 * without the console's scopes never downloads them.
 */
function screen<M>(load: () => Promise<M>, pick: (module: M) => (props: ScreenProps) => ReactNode) {
  return lazy(async () => ({ default: pick(await load()) as ComponentType<ScreenProps> }));
}

/** A screen of the console, shown to a token holding one of `anyOf` (the scopes of the routes it calls). */
interface Section {
  slug: string;
  anyOf: readonly string[];
  /**
   * The edition that serves the routes it calls; absent: `saas` (the @SaasOnly() routes, 404 in the Marketplace
   * edition, whose console is its admin panel: docs/marketplace.md). `marketplace`: @MarketplaceOnly() routes.
   */
  edition?: Edition;
  title(t: Texts): string;
  Screen: ComponentType<ScreenProps>;
}

const SECTIONS: readonly Section[] = [
  {
    slug: 'users',
    anyOf: ['users:read', 'users:manage'],
    title: (t) => t.users,
    Screen: screen(
      () => import('../features/admin-users/UsersScreen'),
      ({ UsersScreen }) =>
        ({ scopes, selfId }) => <UsersScreen selfId={selfId} canManage={scopes.has('users:manage')} />,
    ),
  },
  {
    slug: 'logs',
    anyOf: ['logs:read'],
    title: (t) => t.logs,
    Screen: screen(
      () => import('../features/admin-logs/LogsScreen'),
      ({ LogsScreen }) =>
        () => <LogsScreen />,
    ),
  },
  {
    slug: 'usage',
    anyOf: ['logs:read', 'platform:manage'],
    title: (t) => t.usage,
    Screen: screen(
      () => import('../features/admin-usage/UsageScreen'),
      ({ UsageScreen }) =>
        ({ scopes }) => <UsageScreen canPickTenant={scopes.has('platform:manage')} />,
    ),
  },
  {
    slug: 'master-data',
    anyOf: ['master:manage'],
    title: (t) => t.masterData,
    Screen: screen(
      () => import('../features/admin-master-data/MasterDataScreen'),
      ({ MasterDataScreen }) =>
        () => <MasterDataScreen />,
    ),
  },
  {
    slug: 'clients',
    anyOf: ['platform:manage'],
    title: (t) => t.clients,
    Screen: screen(
      () => import('../features/admin-clients/ClientsScreen'),
      ({ ClientsScreen }) =>
        () => <ClientsScreen />,
    ),
  },
  {
    slug: 'keys',
    anyOf: ['platform:manage'],
    title: (t) => t.apiKeys,
    Screen: screen(
      () => import('../features/admin-keys/KeysScreen'),
      ({ KeysScreen }) =>
        () => <KeysScreen />,
    ),
  },
  {
    slug: 'tool-servers',
    anyOf: ['platform:manage'],
    title: (t) => t.toolServers,
    Screen: screen(
      () => import('../features/admin-catalog/ToolServersScreen'),
      ({ ToolServersScreen }) =>
        () => <ToolServersScreen />,
    ),
  },
  {
    slug: 'personas',
    anyOf: ['platform:manage'],
    title: (t) => t.personas,
    Screen: screen(
      () => import('../features/admin-catalog/CatalogScreen'),
      ({ CatalogScreen }) =>
        () => <CatalogScreen kind="personas" />,
    ),
  },
  {
    slug: 'playbooks',
    anyOf: ['platform:manage'],
    title: (t) => t.playbooks,
    Screen: screen(
      () => import('../features/admin-catalog/CatalogScreen'),
      ({ CatalogScreen }) =>
        () => <CatalogScreen kind="playbooks" />,
    ),
  },
  {
    slug: 'skills',
    anyOf: ['platform:manage'],
    title: (t) => t.skills,
    Screen: screen(
      () => import('../features/admin-catalog/CatalogScreen'),
      ({ CatalogScreen }) =>
        () => <CatalogScreen kind="skills" />,
    ),
  },
  {
    slug: 'library',
    anyOf: ['platform:manage'],
    title: (t) => t.library,
    Screen: screen(
      () => import('../features/admin-library/LibraryScreen'),
      ({ LibraryScreen }) =>
        () => <LibraryScreen />,
    ),
  },
  {
    slug: 'tenants',
    anyOf: ['platform:manage'],
    title: (t) => t.tenants,
    Screen: screen(
      () => import('../features/admin-tenants/TenantsScreen'),
      ({ TenantsScreen }) =>
        () => <TenantsScreen />,
    ),
  },
  {
    slug: 'marketplace-agents',
    anyOf: ['platform:manage'],
    edition: 'marketplace',
    title: (t) => t.marketplaceAgents,
    Screen: screen(
      () => import('../features/admin-marketplace-agents/MarketplaceAgentsScreen'),
      ({ MarketplaceAgentsScreen }) =>
        () => <MarketplaceAgentsScreen />,
    ),
  },
  {
    slug: 'signing-keys',
    anyOf: ['platform:manage'],
    title: (t) => t.signingKeys,
    Screen: screen(
      () => import('../features/admin-signing-keys/SigningKeysScreen'),
      ({ SigningKeysScreen }) =>
        () => <SigningKeysScreen />,
    ),
  },
];

/** The sections of the page's edition whose scopes the token holds. */
function sectionsFor(scopes: ReadonlySet<string>): Section[] {
  const edition = webEdition();
  return SECTIONS.filter((section) => (section.edition ?? 'saas') === edition && holdsAny(scopes, section.anyOf));
}

/** Whether the signed-in user may open the console at all (the top bar's link). */
export function useConsoleAllowed(): boolean {
  const { state } = useAuth();
  return sectionsFor(grantedScopes(state)).length > 0;
}

/** The operator console (`/console/<section>`): its own navigation, each screen over the admin HTTP APIs. */
export function Console() {
  const { state } = useAuth();
  const t = useMessages(consoleText);
  const [location, navigate] = usePath();
  const me = useMe();
  const scopes = grantedScopes(state);
  const allowed = sectionsFor(scopes);
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
        <Suspense fallback={<p role="status">{t.loading}</p>}>
          <current.Screen scopes={scopes} selfId={me.data?.userId} />
        </Suspense>
      </main>
    </div>
  );
}
