import { PROTECTED_RESOURCE_PATHS, protectedResourceUrl } from '@fed/auth';
import { type ServiceConfig } from '@fed/config';

export const MCP_PATH = PROTECTED_RESOURCE_PATHS.mcp;
export const MCP_SCOPE = 'mcp:all';
/** RFC 9728 section 3.1: the well-known prefix, then the resource's path. */
export const MCP_RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

export function mcpResourceMetadataUrl(config: Pick<ServiceConfig, 'http'>): string {
  return `${config.http.publicUrl}${MCP_RESOURCE_METADATA_PATH}`;
}

/** The MCP endpoint's resource indicator (RFC 8707): the metadata's `resource`, and the `aud` of a token asked for it. */
export function mcpResourceUrl(config: Pick<ServiceConfig, 'http'>): string {
  return protectedResourceUrl(config.http.publicUrl, 'mcp');
}
