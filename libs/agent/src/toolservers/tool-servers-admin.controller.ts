import { AuditAction, AuditDetails } from '@fed/audit';
import { SaasOnly, Scopes } from '@fed/auth';
import { numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { NumberedPageQueryDto } from '@fed/server';
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import {
  CreateToolServerBody,
  type ToolServerDeletedResponse,
  type ToolServerListResponse,
  ToolServerNameParams,
  type ToolServerResponse,
  UpdateToolServerBody,
  toToolServerResponse,
} from './tool-servers-admin.dto';
import { ToolServersAdminService } from './tool-servers-admin.service';

// The registry is platform-wide: the platform operator's (platform:manage), as `platformctl toolservers` is.
// Audit rows name what changed, never the auth header (only whether one was given).
@SaasOnly()
@Controller('api/v1/admin/tool-servers')
@Scopes('platform:manage')
export class ToolServersAdminController {
  constructor(@Inject(ToolServersAdminService) private readonly toolServers: ToolServersAdminService) {}

  /** The approved servers in name order, each with the tools it offers and which are allowed. */
  @Get()
  async list(@Query() query: NumberedPageQueryDto): Promise<ToolServerListResponse> {
    const params = toNumberedPageParams(query);
    const { items, total } = await this.toolServers.page(params);
    return { toolServers: items.map(toToolServerResponse), ...numberedPageEnvelope(params, total) };
  }

  @Get(':name')
  async get(@Param() { name }: ToolServerNameParams): Promise<ToolServerResponse> {
    return toToolServerResponse(await this.toolServers.get(name));
  }

  /** Connects, lists the server's tools and records the allowed ones; 502 when it does not answer as MCP. */
  @Post()
  @AuditAction('tool-servers/create', 'create')
  async create(@Body() body: CreateToolServerBody, @AuditDetails() audit: AuditDetails): Promise<ToolServerResponse> {
    audit.add({
      name: body.name,
      url: body.url,
      allowedTools: body.allowedTools,
      authHeader: body.authHeader === undefined ? 'none' : 'set',
      ...(body.timeoutSeconds === undefined ? {} : { timeoutSeconds: body.timeoutSeconds }),
    });
    const item = await this.toolServers.add({
      name: body.name,
      url: body.url,
      allow: body.allowedTools,
      authHeader: body.authHeader,
      timeoutSeconds: body.timeoutSeconds,
    });
    return toToolServerResponse(item);
  }

  /** Changes the URL, auth header, allowed tools or timeout, asking the server for its tools with them first. */
  @Patch(':name')
  @AuditAction('tool-servers/update', 'update')
  async update(
    @Param() { name }: ToolServerNameParams,
    @Body() body: UpdateToolServerBody,
    @AuditDetails() audit: AuditDetails,
  ): Promise<ToolServerResponse> {
    audit.add({
      ...(body.url === undefined ? {} : { url: body.url }),
      ...(body.allowedTools === undefined ? {} : { allowedTools: body.allowedTools }),
      ...(body.authHeader === undefined ? {} : { authHeader: body.authHeader === null ? 'removed' : 'set' }),
      ...(body.timeoutSeconds === undefined ? {} : { timeoutSeconds: body.timeoutSeconds }),
    });
    const item = await this.toolServers.update(name, {
      url: body.url,
      allow: body.allowedTools,
      authHeader: body.authHeader,
      timeoutSeconds: body.timeoutSeconds,
    });
    return toToolServerResponse(item);
  }

  /** Lists the server's tools again; a server that does not answer is 502 and shows `failing` with the reason. */
  @Post(':name/refresh')
  @HttpCode(200)
  @AuditAction('tool-servers/refresh', 'refresh')
  async refresh(@Param() { name }: ToolServerNameParams): Promise<ToolServerResponse> {
    return toToolServerResponse((await this.toolServers.refresh(name)).item);
  }

  /** Its tools are no longer offered from the next turn on. */
  @Delete(':name')
  @AuditAction('tool-servers/delete', 'delete')
  async delete(@Param() { name }: ToolServerNameParams): Promise<ToolServerDeletedResponse> {
    await this.toolServers.remove(name);
    return { name, deleted: true };
  }
}
