export const OIDC_PROVIDER = Symbol.for('fed.identity.OidcProvider');
