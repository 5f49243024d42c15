import { Checks, IsNotBlank, IsStorableText, MaxCharacters, withCode } from '@fed/server';
import { IsDefined, IsOptional, IsString } from 'class-validator';
import { type MemoryScope } from '../memory-entry.entity';
import { type MemoryHit } from '../memory-search';

export const MAX_QUERY_CHARACTERS = 500;
export const MAX_FILTER_CHARACTERS = 100;

const badParameter = (message: string) => withCode('invalid_parameter', message);
const QUERY_MESSAGE = `query must be 1-${MAX_QUERY_CHARACTERS} characters of text`;

function Filter(name: string): PropertyDecorator {
  const message = `${name} must be 1-${MAX_FILTER_CHARACTERS} characters of text`;
  return Checks(
    IsOptional(),
    IsString(badParameter(message)),
    IsNotBlank(badParameter(message)),
    MaxCharacters(MAX_FILTER_CHARACTERS, badParameter(message)),
    IsStorableText(badParameter(message)),
  );
}

/** `POST /v1/admin/memory/query` body; other fields are ignored. */
export class MemoryQueryBody {
  @Checks(
    IsDefined(badParameter('query is required')),
    IsString(badParameter(QUERY_MESSAGE)),
    IsNotBlank(badParameter(QUERY_MESSAGE)),
    MaxCharacters(MAX_QUERY_CHARACTERS, badParameter(QUERY_MESSAGE)),
    IsStorableText(badParameter(QUERY_MESSAGE)),
  )
  query!: string;

  /** Adds the organization's items. */
  @Filter('orgId')
  orgId?: string;

  /** Adds the role's items. */
  @Filter('jobRole')
  jobRole?: string;
}

/** A Memory item (spec document 3). */
export interface MemoryItemResponse {
  text: string;
  type: 'knowledge';
  scope: MemoryScope;
  createdAt: string | null;
  score?: number;
}

export interface MemoryQueryResponse {
  memories: MemoryItemResponse[];
}

export function toMemoryItemResponse(hit: MemoryHit): MemoryItemResponse {
  return {
    text: hit.text,
    type: 'knowledge',
    scope: hit.scope,
    createdAt: hit.createdAt.toISOString(),
    score: Math.round(hit.score * 1e6) / 1e6,
  };
}
