import { Scopes } from '@fed/auth';
import { Controller, Delete, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { type ConversationOwner, type ListOwner, Owner } from '../conversation-owner';
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
  upload(@Owner() owner: ConversationOwner, @Req() request: Request) {
    return this.files.upload(owner, request);
  }

  @Get()
  list(@Owner({ list: true }) owner: ListOwner, @Query() query: ListFilesQuery) {
    return this.files.list(owner, query);
  }

  @Get(':fileId/content')
  content(
    @Owner() owner: ConversationOwner,
    @Param() { fileId }: FileIdParams,
    @Req() request: Request,
    @Res() response: Response,
  ) {
    return this.files.sendContent(owner, fileId, request, response);
  }

  @Delete(':fileId')
  delete(@Owner() owner: ConversationOwner, @Param() { fileId }: FileIdParams) {
    return this.files.delete(owner, fileId);
  }
}
