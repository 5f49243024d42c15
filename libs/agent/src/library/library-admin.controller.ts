import { AuditAction, AuditDetails } from '@fed/audit';
import { SaasOnly, Scopes } from '@fed/auth';
import { numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { NumberedPageQueryDto } from '@fed/server';
import { Body, Controller, Delete, Get, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { type Request } from 'express';
import {
  CreateLibraryTemplateBody,
  type LibraryAdminItemResponse,
  type LibraryAdminListResponse,
  type LibraryItemDeletedResponse,
  LibraryItemIdParams,
  toLibraryAdminItemResponse,
} from './library-admin.dto';
import { LibraryAdminService } from './library-admin.service';

// The library is platform-wide (no tenant column): publishing is the platform operator's (platform:manage), as
// `platformctl library` is. Users list it and attach its items through document 2 (`GET /v1/library`).
@SaasOnly()
@Controller('api/v1/admin/library')
@Scopes('platform:manage')
export class LibraryAdminController {
  constructor(@Inject(LibraryAdminService) private readonly library: LibraryAdminService) {}

  /** Every item in filepath order, files and prompt templates. */
  @Get()
  async list(@Query() query: NumberedPageQueryDto): Promise<LibraryAdminListResponse> {
    const params = toNumberedPageParams(query);
    const { items, total } = await this.library.page(params);
    return { items: items.map(toLibraryAdminItemResponse), ...numberedPageEnvelope(params, total) };
  }

  /**
   * Publishes a file: `multipart/form-data` with the fields `filepath` (required), `title` (default: the
   * filepath's last segment), `description` and `mimeType` (default: from the filepath's extension), then one part
   * `file` (at most 512 MB, streamed to the blob store; its own name and Content-Type are ignored).
   */
  @Post('files')
  @AuditAction('library/files/create', 'create')
  async upload(@Req() request: Request, @AuditDetails() audit: AuditDetails): Promise<LibraryAdminItemResponse> {
    const item = await this.library.uploadFile(request);
    audit.add({ itemId: item.id, filepath: item.filepath, mimeType: item.mimeType, bytes: Number(item.bytes) });
    return toLibraryAdminItemResponse(item);
  }

  /** Publishes a prompt template (its text is listed with it). */
  @Post('templates')
  @AuditAction('library/templates/create', 'create')
  async addTemplate(
    @Body() body: CreateLibraryTemplateBody,
    @AuditDetails() audit: AuditDetails,
  ): Promise<LibraryAdminItemResponse> {
    const { filepath, ...fields } = body;
    const item = await this.library.addTemplate(filepath, fields);
    audit.add({ itemId: item.id, filepath: item.filepath });
    return toLibraryAdminItemResponse(item);
  }

  /** It leaves the list at once, then its bytes are deleted; turns that attached it keep what they read. */
  @Delete(':itemId')
  @AuditAction('library/delete', 'delete')
  async delete(
    @Param() { itemId }: LibraryItemIdParams,
    @AuditDetails() audit: AuditDetails,
  ): Promise<LibraryItemDeletedResponse> {
    const { filepath } = await this.library.removeById(itemId);
    audit.add({ filepath });
    return { itemId, filepath, deleted: true };
  }
}
