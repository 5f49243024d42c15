import { SaasOnly, Scopes } from '@fed/auth';
import { OrderedCursorPageQuery } from '@fed/server';
import { Controller, Get, Query } from '@nestjs/common';
import { type LibraryList, toLibraryList } from './library.dto';
import { LibraryService } from './library.service';

// The spec names no scope for the library. Its items exist to fill the chat request's input_file
// `filepath`, so it takes that request's scope, chat:exec (as the catalog lists do). SaaS only
// (document 2's edition table): in the Marketplace edition the route does not exist.
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
