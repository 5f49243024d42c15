import { type ServiceConfig } from '@fed/config';

export const MCP_PATH = '/api/v1/mcp';
export const MCP_SCOPE = 'mcp:all';
/** RFC 9728 section 3.1: the well-known prefix, then the resource's path. */
export const MCP_RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

export function mcpResourceMetadataUrl(config: Pick<ServiceConfig, 'http'>): string {
  return `${config.http.publicUrl}${MCP_RESOURCE_METADATA_PATH}`;
}
