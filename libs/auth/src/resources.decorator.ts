import { SetMetadata } from '@nestjs/common';
import { type ProtectedResource } from './protected-resources';

export const RESOURCES_METADATA = 'fed.auth.resources';

/**
 * The route belongs to these protected resources too (the deliverable and UI links that MCP and A2A answers
 * hand out): a token issued for one of them (RFC 8707) is taken here, besides `broker` ones.
 */
export const ForResources = (...resources: [ProtectedResource, ...ProtectedResource[]]) =>
  SetMetadata(RESOURCES_METADATA, resources);
