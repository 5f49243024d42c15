import { InMemoryWebStorage, UserManager, WebStorageStateStore } from 'oidc-client-ts';
import type { WebConfig } from '../web-config';

export const CALLBACK_PATH = '/callback';
export const SIGNED_OUT_PATH = '/signed-out';

/**
 * The code flow with PKCE as a public client. Tokens stay in memory (never Web Storage); only the state and
 * code verifier of a sign-in under way sit in sessionStorage, to survive the round trip through the login page.
 * The provider rotates refresh tokens, and oidc-client-ts keeps the newest one.
 */
export function createUserManager(config: WebConfig, origin = window.location.origin): UserManager {
  return new UserManager({
    authority: config.issuer,
    client_id: config.clientId,
    redirect_uri: `${origin}${CALLBACK_PATH}`,
    post_logout_redirect_uri: `${origin}${SIGNED_OUT_PATH}`,
    response_type: 'code',
    scope: config.scopes.join(' '),
    metadataSeed: { end_session_endpoint: config.endSessionEndpoint },
    userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
    stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
    automaticSilentRenew: true,
    loadUserInfo: false,
  });
}
