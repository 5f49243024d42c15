import { RefuseUnknownFields, withCode } from '@fed/server';
import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { type CatalogItem } from './catalog-admin.service';
import { IsCatalogDescription, IsCatalogInstructions, IsCatalogName, IsPersonaKey } from './catalog.rules';

// The operator's view of the catalog: every record, deactivated ones and instructions included (the lists of
// document 2, `GET /v1/personas` and the others, show users neither). A key or id of the wrong shape names no
// record: 404, as an unknown one.

const enabledRefusal = (field: string) => withCode('invalid_parameter', `${field} must be true or false`);

export class PersonaKeyParams {
  @IsString()
  personaKey!: string;
}

export class PlaybookIdParams {
  @IsString()
  playbookId!: string;
}

export class SkillIdParams {
  @IsString()
  skillId!: string;
}

@RefuseUnknownFields()
export class CreatePersonaBody {
  /** The chat request's `personaKey`; never changes. */
  @IsPersonaKey()
  personaKey!: string;

  @IsCatalogName()
  name!: string;

  @IsOptional()
  @IsCatalogDescription()
  description?: string;

  /** Added to the agent's system prompt. */
  @IsCatalogInstructions()
  instructions!: string;
}

/** An unknown field (such as `personaKey`, which never changes) is refused rather than ignored. */
@RefuseUnknownFields()
export class UpdatePersonaBody {
  @IsOptional()
  @IsCatalogName()
  name?: string;

  @IsOptional()
  @IsCatalogDescription()
  description?: string;

  @IsOptional()
  @IsCatalogInstructions()
  instructions?: string;
}

@RefuseUnknownFields()
export class CreatePlaybookBody {
  @IsCatalogName()
  name!: string;

  @IsOptional()
  @IsCatalogDescription()
  description?: string;

  @IsCatalogInstructions()
  instructions!: string;

  /** Default true; a deactivated playbook is refused by chat requests (400) and not listed to users. */
  @IsOptional()
  @IsBoolean(enabledRefusal('active'))
  active?: boolean;
}

@RefuseUnknownFields()
export class UpdatePlaybookBody {
  @IsOptional()
  @IsCatalogName()
  name?: string;

  @IsOptional()
  @IsCatalogDescription()
  description?: string;

  @IsOptional()
  @IsCatalogInstructions()
  instructions?: string;

  /** `platformctl playbooks activate|deactivate`. */
  @IsOptional()
  @IsBoolean(enabledRefusal('active'))
  active?: boolean;
}

@RefuseUnknownFields()
export class CreateSkillBody {
  @IsCatalogName()
  name!: string;

  @IsOptional()
  @IsCatalogDescription()
  description?: string;

  @IsCatalogInstructions()
  instructions!: string;

  /** Default true; an unavailable skill is ignored by chat requests and not listed to users. */
  @IsOptional()
  @IsBoolean(enabledRefusal('available'))
  available?: boolean;
}

@RefuseUnknownFields()
export class UpdateSkillBody {
  @IsOptional()
  @IsCatalogName()
  name?: string;

  @IsOptional()
  @IsCatalogDescription()
  description?: string;

  @IsOptional()
  @IsCatalogInstructions()
  instructions?: string;

  /** `platformctl skills enable|disable`. */
  @IsOptional()
  @IsBoolean(enabledRefusal('available'))
  available?: boolean;
}

export interface PersonaResponse {
  personaKey: string;
  name: string;
  description: string;
  instructions: string;
  createdAt: string;
  updatedAt: string;
}

export interface PlaybookResponse {
  playbookId: string;
  name: string;
  description: string;
  instructions: string;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface SkillResponse {
  skillId: string;
  name: string;
  description: string;
  instructions: string;
  available: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface PersonaListResponse {
  personas: PersonaResponse[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

export interface PlaybookListResponse {
  playbooks: PlaybookResponse[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

export interface SkillListResponse {
  skills: SkillResponse[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

export interface PersonaDeletedResponse {
  personaKey: string;
  deleted: true;
}

export interface PlaybookDeletedResponse {
  playbookId: string;
  deleted: true;
}

export interface SkillDeletedResponse {
  skillId: string;
  deleted: true;
}

function textOf(item: CatalogItem) {
  return { name: item.name, description: item.description, instructions: item.instructions };
}

function timesOf(item: CatalogItem) {
  return { createdAt: item.createdAt.toISOString(), updatedAt: item.updatedAt.toISOString() };
}

export function toPersonaResponse(item: CatalogItem): PersonaResponse {
  return { personaKey: item.ref, ...textOf(item), ...timesOf(item) };
}

export function toPlaybookResponse(item: CatalogItem): PlaybookResponse {
  return { playbookId: item.ref, ...textOf(item), active: item.enabled, ...timesOf(item) };
}

export function toSkillResponse(item: CatalogItem): SkillResponse {
  return { skillId: item.ref, ...textOf(item), available: item.enabled, ...timesOf(item) };
}
