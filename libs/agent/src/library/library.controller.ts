import { SaasOnly, Scopes } from '@fed/auth';
import { OrderedCursorPageQuery } from '@fed/server';
import { Controller, Get, Query } from '@nestjs/common';
import { type LibraryList, toLibraryList } from './library.dto';
import { LibraryService } from './library.service';

// The spec names no scope for the library; its items fill the chat request's `filepath`, so it takes chat:exec.
// SaaS only (document 2's edition table).
@Scopes('chat:exec')
@SaasOnly()
@Controller('api/v1')
export class LibraryController {
  constructor(private readonly library: LibraryService) {}

  @Get('library')
  async list(@Query() query: OrderedCursorPageQuery): Promise<LibraryList> {
    return toLibraryList(await this.library.list(query));
  }
}
