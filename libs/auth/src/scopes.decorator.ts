import { SetMetadata } from '@nestjs/common';

export const SCOPES_METADATA = 'fed.auth.scopes';

/** The token needs at least one of `anyOf` (spec: "chat:exec or a2a:all or mcp:all"). */
export const Scopes = (...anyOf: [string, ...string[]]) => SetMetadata(SCOPES_METADATA, anyOf);
