import { SetMetadata } from '@nestjs/common';

export const PUBLIC_METADATA = 'fed.auth.public';

/** A route that needs no token (health, metrics, discovery, JWKS). */
export const Public = () => SetMetadata(PUBLIC_METADATA, true);
