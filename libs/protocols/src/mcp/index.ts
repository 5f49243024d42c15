export { McpModule } from './mcp.module';
