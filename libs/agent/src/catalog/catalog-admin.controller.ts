import { AuditAction, AuditDetails } from '@fed/audit';
import { SaasOnly, Scopes } from '@fed/auth';
import { numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { NumberedPageQueryDto } from '@fed/server';
import { Body, Controller, Delete, Get, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import {
  CreatePersonaBody,
  CreatePlaybookBody,
  CreateSkillBody,
  type PersonaDeletedResponse,
  PersonaKeyParams,
  type PersonaListResponse,
  type PersonaResponse,
  type PlaybookDeletedResponse,
  PlaybookIdParams,
  type PlaybookListResponse,
  type PlaybookResponse,
  type SkillDeletedResponse,
  SkillIdParams,
  type SkillListResponse,
  type SkillResponse,
  UpdatePersonaBody,
  UpdatePlaybookBody,
  UpdateSkillBody,
  toPersonaResponse,
  toPlaybookResponse,
  toSkillResponse,
} from './catalog-admin.dto';
import { CatalogAdminService } from './catalog-admin.service';

// The catalog is platform-wide (no tenant column): its administration is the platform operator's
// (platform:manage), as `platformctl personas|playbooks|skills` is. Users read it through document 2's lists.
// Audit rows name the record and the fields given, never the instructions' text (it may be long).

/** The fields a change gave, for its audit row. */
function changedFields(body: object): { fields: string[] } {
  return {
    fields: Object.keys(body)
      .filter((key) => (body as Record<string, unknown>)[key] !== undefined)
      .sort(),
  };
}

@SaasOnly()
@Controller('api/v1/admin/personas')
@Scopes('platform:manage')
export class PersonasAdminController {
  constructor(@Inject(CatalogAdminService) private readonly catalog: CatalogAdminService) {}

  /** Every persona in name order. */
  @Get()
  async list(@Query() query: NumberedPageQueryDto): Promise<PersonaListResponse> {
    const params = toNumberedPageParams(query);
    const { items, total } = await this.catalog.page('persona', params);
    return { personas: items.map(toPersonaResponse), ...numberedPageEnvelope(params, total) };
  }

  @Get(':personaKey')
  async get(@Param() { personaKey }: PersonaKeyParams): Promise<PersonaResponse> {
    return toPersonaResponse(await this.catalog.get('persona', personaKey));
  }

  @Post()
  @AuditAction('catalog/personas/create', 'create')
  async create(@Body() body: CreatePersonaBody, @AuditDetails() audit: AuditDetails): Promise<PersonaResponse> {
    audit.add({ personaKey: body.personaKey, name: body.name });
    const { personaKey, ...text } = body;
    return toPersonaResponse(await this.catalog.create('persona', { key: personaKey, ...text }));
  }

  @Patch(':personaKey')
  @AuditAction('catalog/personas/update', 'update')
  async update(
    @Param() { personaKey }: PersonaKeyParams,
    @Body() body: UpdatePersonaBody,
    @AuditDetails() audit: AuditDetails,
  ): Promise<PersonaResponse> {
    audit.add(changedFields(body));
    return toPersonaResponse(await this.catalog.update('persona', personaKey, body));
  }

  /** Turns that named it go on without it. */
  @Delete(':personaKey')
  @AuditAction('catalog/personas/delete', 'delete')
  async delete(@Param() { personaKey }: PersonaKeyParams): Promise<PersonaDeletedResponse> {
    await this.catalog.delete('persona', personaKey);
    return { personaKey, deleted: true };
  }
}

@SaasOnly()
@Controller('api/v1/admin/playbooks')
@Scopes('platform:manage')
export class PlaybooksAdminController {
  constructor(@Inject(CatalogAdminService) private readonly catalog: CatalogAdminService) {}

  /** Every playbook in name order, deactivated ones included. */
  @Get()
  async list(@Query() query: NumberedPageQueryDto): Promise<PlaybookListResponse> {
    const params = toNumberedPageParams(query);
    const { items, total } = await this.catalog.page('playbook', params);
    return { playbooks: items.map(toPlaybookResponse), ...numberedPageEnvelope(params, total) };
  }

  @Get(':playbookId')
  async get(@Param() { playbookId }: PlaybookIdParams): Promise<PlaybookResponse> {
    return toPlaybookResponse(await this.catalog.get('playbook', playbookId));
  }

  @Post()
  @AuditAction('catalog/playbooks/create', 'create')
  async create(@Body() body: CreatePlaybookBody, @AuditDetails() audit: AuditDetails): Promise<PlaybookResponse> {
    audit.add({ name: body.name, active: body.active ?? true });
    const { active, ...text } = body;
    const item = await this.catalog.create('playbook', { ...text, enabled: active });
    audit.add({ playbookId: item.ref });
    return toPlaybookResponse(item);
  }

  /** `active: false` deactivates it (chat requests naming it are refused, users' list omits it), `true` again. */
  @Patch(':playbookId')
  @AuditAction('catalog/playbooks/update', 'update')
  async update(
    @Param() { playbookId }: PlaybookIdParams,
    @Body() body: UpdatePlaybookBody,
    @AuditDetails() audit: AuditDetails,
  ): Promise<PlaybookResponse> {
    audit.add({ ...changedFields(body), ...(body.active === undefined ? {} : { active: body.active }) });
    const { active, ...text } = body;
    return toPlaybookResponse(await this.catalog.update('playbook', playbookId, { ...text, enabled: active }));
  }

  @Delete(':playbookId')
  @AuditAction('catalog/playbooks/delete', 'delete')
  async delete(@Param() { playbookId }: PlaybookIdParams): Promise<PlaybookDeletedResponse> {
    await this.catalog.delete('playbook', playbookId);
    return { playbookId, deleted: true };
  }
}

@SaasOnly()
@Controller('api/v1/admin/skills')
@Scopes('platform:manage')
export class SkillsAdminController {
  constructor(@Inject(CatalogAdminService) private readonly catalog: CatalogAdminService) {}

  /** Every skill in name order, unavailable ones included. */
  @Get()
  async list(@Query() query: NumberedPageQueryDto): Promise<SkillListResponse> {
    const params = toNumberedPageParams(query);
    const { items, total } = await this.catalog.page('skill', params);
    return { skills: items.map(toSkillResponse), ...numberedPageEnvelope(params, total) };
  }

  @Get(':skillId')
  async get(@Param() { skillId }: SkillIdParams): Promise<SkillResponse> {
    return toSkillResponse(await this.catalog.get('skill', skillId));
  }

  @Post()
  @AuditAction('catalog/skills/create', 'create')
  async create(@Body() body: CreateSkillBody, @AuditDetails() audit: AuditDetails): Promise<SkillResponse> {
    audit.add({ name: body.name, available: body.available ?? true });
    const { available, ...text } = body;
    const item = await this.catalog.create('skill', { ...text, enabled: available });
    audit.add({ skillId: item.ref });
    return toSkillResponse(item);
  }

  /** `available: false` disables it (chat requests naming it ignore it, users' list omits it), `true` again. */
  @Patch(':skillId')
  @AuditAction('catalog/skills/update', 'update')
  async update(
    @Param() { skillId }: SkillIdParams,
    @Body() body: UpdateSkillBody,
    @AuditDetails() audit: AuditDetails,
  ): Promise<SkillResponse> {
    audit.add({ ...changedFields(body), ...(body.available === undefined ? {} : { available: body.available }) });
    const { available, ...text } = body;
    return toSkillResponse(await this.catalog.update('skill', skillId, { ...text, enabled: available }));
  }

  @Delete(':skillId')
  @AuditAction('catalog/skills/delete', 'delete')
  async delete(@Param() { skillId }: SkillIdParams): Promise<SkillDeletedResponse> {
    await this.catalog.delete('skill', skillId);
    return { skillId, deleted: true };
  }
}
