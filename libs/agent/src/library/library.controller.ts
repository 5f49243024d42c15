import { Scopes } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { ApiError } from '@fed/contracts';
import { OrderedCursorPageQuery } from '@fed/server';
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { type LibraryList, toLibraryList } from './library.dto';
import { LibraryService } from './library.service';

// The spec names no scope for the library. Its items exist to fill the chat request's input_file
// `filepath`, so it takes that request's scope, chat:exec (as the catalog lists do).
@Scopes('chat:exec')
@Controller('api/v1')
export class LibraryController {
  constructor(
    private readonly library: LibraryService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Get('library')
  async list(@Query() query: OrderedCursorPageQuery): Promise<LibraryList> {
    // SaaS only (spec, endpoint groups): in the Marketplace edition the route does not exist.
    if (this.config.edition === 'marketplace') throw new ApiError('not_found', 'no such route');
    return toLibraryList(await this.library.list(query));
  }
}
