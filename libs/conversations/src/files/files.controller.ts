import { type AccessTokenPrincipal, CurrentPrincipal, Scopes } from '@fed/auth';
import { Controller, Delete, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { ownerOf } from '../conversation-owner';
import { FileIdParams, ListFilesQuery } from './files.dto';
import { FilesService } from './files.service';

// The upload reads its multipart body itself (no body parser, nothing buffered); the download writes
// its response itself (ranges, streaming). Parameters are validated by the application's pipe.

/** `{base_url}/api/v1/files`: the user's uploaded files. */
@Controller('api/v1/files')
@Scopes('chat:file')
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Post()
  upload(@CurrentPrincipal() principal: AccessTokenPrincipal, @Req() request: Request) {
    return this.files.upload(ownerOf(principal), request);
  }

  @Get()
  list(@CurrentPrincipal() principal: AccessTokenPrincipal, @Query() query: ListFilesQuery) {
    return this.files.list(ownerOf(principal), query);
  }

  @Get(':fileId/content')
  content(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Param() { fileId }: FileIdParams,
    @Req() request: Request,
    @Res() response: Response,
  ) {
    return this.files.sendContent(ownerOf(principal), fileId, request, response);
  }

  @Delete(':fileId')
  delete(@CurrentPrincipal() principal: AccessTokenPrincipal, @Param() { fileId }: FileIdParams) {
    return this.files.delete(ownerOf(principal), fileId);
  }
}
