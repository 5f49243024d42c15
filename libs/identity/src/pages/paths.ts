export const OIDC_BASE_PATH = '/federation/auth/v1';
export const INTERACTION_PATH = `${OIDC_BASE_PATH}/interaction`;
/** Where tenants' own providers send the user back to (registered upstream as the redirect URI). */
export const IDP_CALLBACK_PATH = `${OIDC_BASE_PATH}/idp/callback`;
