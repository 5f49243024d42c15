import { SetMetadata } from '@nestjs/common';

export const MARKETPLACE_ONLY_METADATA = 'fed.auth.marketplaceOnly';

/**
 * Marketplace-only routes (its admin panel's, docs/marketplace.md): the mirror of `@SaasOnly()`. In the SaaS
 * edition they 404 before any token is read; in the Marketplace edition their scopes are checked, although that
 * edition checks none on document 2's routes.
 */
export const MarketplaceOnly = () => SetMetadata(MARKETPLACE_ONLY_METADATA, true);
