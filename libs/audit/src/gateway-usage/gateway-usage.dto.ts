import { isUuid } from '@fed/contracts';
import { Checks, IsNotBlank, IsStorableText, MaxCharacters, isCalendarDay, withCode } from '@fed/server';
import { IsDefined, IsIn, IsOptional, IsString, ValidateBy } from 'class-validator';
import { type GatewayUsageDimension } from './gateway-usage.repository';
import { gatewayUsageDimensions } from './gateway-usage.rules';
import { type GatewayUsageReport } from './gateway-usage.service';

const refusal = (message: string) => withCode('invalid_parameter', message);

/** @openapi {"type": "string", "format": "date"} */
function UsageDay(name: string): PropertyDecorator {
  return ValidateBy(
    { name: 'calendarDay', validator: { validate: (value: unknown) => isCalendarDay(value) } },
    refusal(`${name} must be a date YYYY-MM-DD`),
  );
}

function Text(name: string, max: number): PropertyDecorator {
  const message = `${name} must be 1-${max} characters of text`;
  return Checks(
    IsString(refusal(message)),
    IsNotBlank(refusal(message)),
    MaxCharacters(max, refusal(message)),
    IsStorableText(refusal(message)),
  );
}

/** @openapi {"type": "string", "format": "uuid"} */
function Uuid(name: string): PropertyDecorator {
  return ValidateBy({ name: 'isUuid', validator: { validate: isUuid } }, refusal(`${name} must be a UUID`));
}

/** UTC days, `to` inclusive (as the logs take them), at most 366 days. */
export class GatewayUsageQuery {
  /** First day; default 29 days before `to`. */
  @IsOptional()
  @UsageDay('from')
  from?: string;

  /** Last day, included; default today (UTC). */
  @IsOptional()
  @UsageDay('to')
  @ValidateBy(
    {
      name: 'notBeforeFrom',
      validator: {
        validate: (value: unknown, args) => {
          const from = (args?.object as { from?: unknown }).from;
          return !isCalendarDay(from) || !isCalendarDay(value) || value >= from;
        },
      },
    },
    refusal('to must not be before from'),
  )
  to?: string;

  /** `model` (as requested), `key` (the virtual key's id) or `user` (the caller: `api-key:<name>` or `client:<clientId>`). */
  @Checks(
    IsDefined(refusal('groupBy is required: model, key or user')),
    IsIn(gatewayUsageDimensions, refusal('groupBy must be model, key or user')),
  )
  groupBy!: GatewayUsageDimension;

  /** Only this model (as requested). */
  @IsOptional()
  @Text('model', 200)
  model?: string;

  /** Only this virtual key. */
  @IsOptional()
  @Uuid('keyId')
  keyId?: string;

  /** Only this caller (`api-key:<name>` or `client:<clientId>`). */
  @IsOptional()
  @Text('user', 200)
  user?: string;

  /** Only this tenant: the platform operator's filter (a tenant's reader may name only its own tenant). */
  @IsOptional()
  @Uuid('tenantId')
  tenantId?: string;
}

/** What a set of gateway log rows adds up to. */
export interface GatewayUsageFigures {
  requests: number;
  /** Rows whose `success` is false (refused, failed, or cut short by the client). */
  errors: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedTokens: number;
  /** US dollars, the exact decimal as a string (as the gateway log's `costUsd`). */
  costUsd: string;
}

export interface GatewayUsageDay extends GatewayUsageFigures {
  /** A UTC day, YYYY-MM-DD. */
  day: string;
  /** The model, key id or user (per `groupBy`); null: rows without one (e.g. calls refused before a key was read). */
  group: string | null;
}

export interface GatewayUsageGroup extends GatewayUsageFigures {
  group: string | null;
}

export interface GatewayUsageResponse {
  from: string;
  to: string;
  groupBy: GatewayUsageDimension;
  /** Whose usage: the reader's tenant, or the operator's `tenantId` filter; null: every tenant's and none's. */
  tenantId: string | null;
  /** Days without usage are left out; by day, then group. */
  days: GatewayUsageDay[];
  /** Each group over the whole range. */
  groups: GatewayUsageGroup[];
  totals: GatewayUsageFigures;
}

/** The report's figures are the answer's already (the cost a decimal string): no copy of the days. */
export function toGatewayUsageResponse(report: GatewayUsageReport): GatewayUsageResponse {
  return {
    from: report.from,
    to: report.to,
    groupBy: report.groupBy,
    tenantId: report.tenantId,
    days: report.days,
    groups: report.groups,
    totals: report.totals,
  };
}
