import { type CursorPage } from '@fed/contracts';
import { type PersonaListing, type PlaybookListing, type SkillListing } from './catalog.repository';

// The spec names the lists and the ids the chat request takes (personaKey, playbookId, skillId) but
// not the records: each carries its id, a name and a description. Instructions are never shown.

export interface PersonaList {
  personas: { personaKey: string; name: string; description: string }[];
  hasMore: boolean;
  cursor?: string;
}

export interface PlaybookList {
  playbooks: { playbookId: string; name: string; description: string }[];
  hasMore: boolean;
  cursor?: string;
}

export interface SkillList {
  skills: { skillId: string; name: string; description: string }[];
  hasMore: boolean;
  cursor?: string;
}

function pageFields(page: CursorPage<unknown>): { hasMore: boolean; cursor?: string } {
  return page.hasMore && page.cursor ? { hasMore: true, cursor: page.cursor } : { hasMore: false };
}

export function toPersonaList(page: CursorPage<PersonaListing>): PersonaList {
  return {
    personas: page.items.map((row) => ({ personaKey: row.key, name: row.name, description: row.description })),
    ...pageFields(page),
  };
}

export function toPlaybookList(page: CursorPage<PlaybookListing>): PlaybookList {
  return {
    playbooks: page.items.map((row) => ({ playbookId: row.id, name: row.name, description: row.description })),
    ...pageFields(page),
  };
}

export function toSkillList(page: CursorPage<SkillListing>): SkillList {
  return {
    skills: page.items.map((row) => ({ skillId: row.id, name: row.name, description: row.description })),
    ...pageFields(page),
  };
}
