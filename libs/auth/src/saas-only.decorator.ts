import { SetMetadata } from '@nestjs/common';

export const SAAS_ONLY_METADATA = 'fed.auth.saasOnly';

/**
 * Routes of the SaaS edition only (document 2's edition table, document 3's "The Marketplace edition has
 * none of these endpoints"). With `EDITION=marketplace` they answer the 404 of an unknown route, before
 * any token is looked at: a caller cannot tell them from a path that was never there.
 */
export const SaasOnly = () => SetMetadata(SAAS_ONLY_METADATA, true);
