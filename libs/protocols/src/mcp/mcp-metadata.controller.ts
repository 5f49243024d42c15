import { Public, SaasOnly } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { ApiError } from '@fed/contracts';
import { All, Controller, Get, Header, Inject } from '@nestjs/common';
import { MCP_PATH, MCP_RESOURCE_METADATA_PATH, MCP_SCOPE, mcpResourceUrl } from './mcp-urls';

/** RFC 9728 protected-resource metadata of the MCP endpoint. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: string[];
}

/** The MCP path's other methods: resource metadata for 401s, 405 otherwise (stateless); no MCP in Marketplace. */
@SaasOnly()
@Controller()
export class McpMetadataController {
  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {}

  @Get(MCP_RESOURCE_METADATA_PATH.slice(1))
  @Public()
  @Header('Cache-Control', 'public, max-age=300')
  metadata(): ProtectedResourceMetadata {
    return {
      resource: mcpResourceUrl(this.config),
      authorization_servers: [this.config.auth.issuer],
      scopes_supported: [MCP_SCOPE],
      bearer_methods_supported: ['header'],
    };
  }

  @All(MCP_PATH.slice(1))
  @Public()
  notAllowed(): never {
    throw new ApiError('method_not_allowed', 'the MCP endpoint takes POST only (stateless streamable HTTP)', {
      Allow: 'POST',
    });
  }
}
