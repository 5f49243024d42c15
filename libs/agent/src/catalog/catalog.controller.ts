import { Scopes, SaasOnly } from '@fed/auth';
import { OrderedCursorPageQuery } from '@fed/server';
import { Controller, Get, Query } from '@nestjs/common';
import {
  type PersonaList,
  type PlaybookList,
  type SkillList,
  toPersonaList,
  toPlaybookList,
  toSkillList,
} from './catalog.dto';
import { CatalogService } from './catalog.service';

// The spec names no scope for these lists. They exist to fill the chat request's personaKey,
// playbookId and skillIds, so they take that request's scope, chat:exec.
@Scopes('chat:exec')
@SaasOnly()
@Controller('api/v1')
export class CatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Get('personas')
  async personas(@Query() query: OrderedCursorPageQuery): Promise<PersonaList> {
    return toPersonaList(await this.catalog.listPersonas(query));
  }

  @Get('playbooks')
  async playbooks(@Query() query: OrderedCursorPageQuery): Promise<PlaybookList> {
    return toPlaybookList(await this.catalog.listPlaybooks(query));
  }

  @Get('skills')
  async skills(@Query() query: OrderedCursorPageQuery): Promise<SkillList> {
    return toSkillList(await this.catalog.listSkills(query));
  }
}
