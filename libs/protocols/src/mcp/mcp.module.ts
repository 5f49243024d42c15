import { Module } from '@nestjs/common';

/** MCP of document 3: the stateless streamable-HTTP endpoint `POST /api/v1/mcp` and its resource metadata. */
@Module({})
export class McpModule {}
