import { type NumberedPageEnvelope, isUuid } from '@fed/contracts';
import {
  Checks,
  IsNotBlank,
  IsStorableText,
  MaxCharacters,
  NumberedPageQueryDto,
  RefuseUnknownFields,
  withCode,
} from '@fed/server';
import { IsBoolean, IsIn, IsString, ValidateBy, ValidateIf } from 'class-validator';
import { IsCatalogInstructions, IsCatalogName } from '../catalog/catalog.rules';
import { AGENT_RULE_MESSAGES, agentId, agentModelConfig } from './agent.rules';
import { type MarketplaceAgentEntity } from './marketplace-agent.entity';

// The admin panel's view of the Marketplace agents (docs/marketplace.md, "Agents over HTTP"). Each field is checked
// by the rule `platformctl agents` applies (agent.rules.ts, the catalog's for name and instructions), so that the
// two refuse the same values; the service checks them again.

const refusal = (message: string) => withCode('invalid_parameter', message);
export const MAX_AGENT_SEARCH_CHARACTERS = 100;
const SEARCH_MESSAGE = `search must be 1-${MAX_AGENT_SEARCH_CHARACTERS} characters of text`;

/** Validated when present: `null` is refused rather than read as absent. */
const IfPresent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
/** Validated when present and not `null` (`null` resets an optional field to the deployment's default). */
const IfSet = () => ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);

/** True when `check` (a rule of agent.rules.ts) takes the value without throwing. */
function accepted(check: (value: never) => unknown, value: unknown): boolean {
  try {
    check(value as never);
    return true;
  } catch {
    return false;
  }
}

function byRule(name: string, message: string, accepts: (value: unknown) => boolean): PropertyDecorator {
  return ValidateBy({ name, validator: { validate: accepts } }, refusal(message));
}

/** @openapi {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"} */
function IsAgentIdField(): PropertyDecorator {
  return byRule('isAgentId', AGENT_RULE_MESSAGES.id, (value) => typeof value === 'string' && accepted(agentId, value));
}

/** @openapi {"type": "string", "minLength": 1, "maxLength": 200} */
function IsAgentModel(): PropertyDecorator {
  return byRule(
    'isAgentModel',
    AGENT_RULE_MESSAGES.model,
    (value) => typeof value === 'string' && accepted(agentModelConfig, { model: value }),
  );
}

/** @openapi {"type": "number", "minimum": 0, "maximum": 2} */
function IsAgentTemperature(): PropertyDecorator {
  return byRule(
    'isAgentTemperature',
    AGENT_RULE_MESSAGES.temperature,
    (value) => typeof value === 'number' && accepted(agentModelConfig, { temperature: value }),
  );
}

/** @openapi {"type": "integer", "minimum": 1, "maximum": 1000000} */
function IsAgentMaxOutputTokens(): PropertyDecorator {
  return byRule(
    'isAgentMaxOutputTokens',
    AGENT_RULE_MESSAGES.maxOutputTokens,
    (value) => typeof value === 'number' && accepted(agentModelConfig, { maxOutputTokens: value }),
  );
}

/** @openapi {"type": "string", "format": "uuid"} */
function IsAgentTenant(): PropertyDecorator {
  return byRule('isTenantId', AGENT_RULE_MESSAGES.tenantId, (value) => typeof value === 'string' && isUuid(value));
}

/** @openapi {"type": "boolean"} */
function Flag(field: string): PropertyDecorator {
  return IsBoolean(refusal(`${field} must be true or false`));
}

/** @openapi {"type": "string", "minLength": 1, "maxLength": 100} */
function SearchText(): PropertyDecorator {
  return Checks(
    IsString(refusal(SEARCH_MESSAGE)),
    IsNotBlank(refusal(SEARCH_MESSAGE)),
    MaxCharacters(MAX_AGENT_SEARCH_CHARACTERS, refusal(SEARCH_MESSAGE)),
    IsStorableText(refusal(SEARCH_MESSAGE)),
  );
}

/** `search`: a case-insensitive substring of the id or the name; `enabled`: `true` or `false`; `tenantId`: agents restricted to that tenant. */
export class ListMarketplaceAgentsQuery extends NumberedPageQueryDto {
  @IfPresent()
  @SearchText()
  search?: string;

  @IfPresent()
  @IsIn(['true', 'false'], refusal('enabled must be true or false'))
  enabled?: 'true' | 'false';

  @IfPresent()
  @IsAgentTenant()
  tenantId?: string;
}

/** The id is checked by the service (400 `invalid_parameter` when malformed, as `platformctl agents` answers). */
export class AgentIdParams {
  @IsString()
  agentId!: string;
}

@RefuseUnknownFields()
export class CreateMarketplaceAgentBody {
  /** The chat request's `agentId`; never changes, never reused (a deleted agent keeps it). Absent: a UUID. */
  @IfPresent()
  @IsAgentIdField()
  agentId?: string;

  @IsCatalogName()
  name!: string;

  /** The agent's system prompt, after the platform's own lines. */
  @IsCatalogInstructions()
  instructions!: string;

  /** A model or alias of the gateway's routing file; absent or null: AGENT_MODEL. */
  @IfSet()
  @IsAgentModel()
  model?: string | null;

  @IfSet()
  @IsAgentTemperature()
  temperature?: number | null;

  @IfSet()
  @IsAgentMaxOutputTokens()
  maxOutputTokens?: number | null;

  /** Default true. */
  @IfPresent()
  @Flag('enabled')
  enabled?: boolean;

  /** Only this tenant's service accounts may use it; absent or null: every one. */
  @IfSet()
  @IsAgentTenant()
  tenantId?: string | null;
}

/** The fields given change; `null` resets `model`, `temperature`, `maxOutputTokens` or `tenantId`. */
@RefuseUnknownFields()
export class UpdateMarketplaceAgentBody {
  @IfPresent()
  @IsCatalogName()
  name?: string;

  @IfPresent()
  @IsCatalogInstructions()
  instructions?: string;

  @IfSet()
  @IsAgentModel()
  model?: string | null;

  @IfSet()
  @IsAgentTemperature()
  temperature?: number | null;

  @IfSet()
  @IsAgentMaxOutputTokens()
  maxOutputTokens?: number | null;

  /** false: new turns are refused (400 `agent_disabled`); its conversations stay readable. */
  @IfPresent()
  @Flag('enabled')
  enabled?: boolean;

  @IfSet()
  @IsAgentTenant()
  tenantId?: string | null;
}

export interface MarketplaceAgentResponse {
  agentId: string;
  name: string;
  instructions: string;
  /** null: AGENT_MODEL. */
  model: string | null;
  /** null: the provider's default. */
  temperature: number | null;
  /** null: the provider's default. */
  maxOutputTokens: number | null;
  enabled: boolean;
  /** null: every service account of the deployment may use it. */
  tenantId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MarketplaceAgentListResponse extends NumberedPageEnvelope {
  agents: MarketplaceAgentResponse[];
}

export interface MarketplaceAgentDeletedResponse {
  agentId: string;
  deleted: true;
}

export function toMarketplaceAgentResponse(agent: MarketplaceAgentEntity): MarketplaceAgentResponse {
  return {
    agentId: agent.id,
    name: agent.name,
    instructions: agent.instructions,
    model: agent.modelConfig.model ?? null,
    temperature: agent.modelConfig.temperature ?? null,
    maxOutputTokens: agent.modelConfig.maxOutputTokens ?? null,
    enabled: agent.enabled,
    tenantId: agent.tenantId,
    createdAt: agent.createdAt.toISOString(),
    updatedAt: agent.updatedAt.toISOString(),
  };
}
