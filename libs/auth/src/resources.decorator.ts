import { SetMetadata } from '@nestjs/common';
import { type ProtectedResource } from './protected-resources';

export const RESOURCES_METADATA = 'fed.auth.resources';

/** Also takes tokens issued for these resources (RFC 8707), for the links MCP and A2A answers hand out. */
export const ForResources = (...resources: [ProtectedResource, ...ProtectedResource[]]) =>
  SetMetadata(RESOURCES_METADATA, resources);
