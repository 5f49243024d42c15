import { SetMetadata } from '@nestjs/common';

export const SAAS_ONLY_METADATA = 'fed.auth.saasOnly';

/**
 * SaaS-only routes (document 2's edition table, document 3). With `EDITION=marketplace` they 404 before
 * any token is read, so they cannot be told from a path that never existed.
 */
export const SaasOnly = () => SetMetadata(SAAS_ONLY_METADATA, true);
