import { isPrintableLine, isStorableText } from '@fed/contracts';
import { CatalogError } from './catalog.errors';

// Lengths are counted as JavaScript and JSON count them (UTF-16 code units). For names this also
// keeps a list cursor, which carries the last name, within the cursor's 256-unit key limit.
export const NAME_MAX = 200;
export const DESCRIPTION_MAX = 2_000;
export const INSTRUCTIONS_MAX = 20_000;

const PERSONA_KEY = /^[a-z0-9_-]{1,64}$/;

export function isPersonaKey(value: unknown): value is string {
  return typeof value === 'string' && PERSONA_KEY.test(value);
}

export function personaKey(value: string): string {
  if (!isPersonaKey(value)) {
    throw new CatalogError('invalid_key', 'a persona key is 1-64 characters of a-z, 0-9, _ and -');
  }
  return value;
}

export function catalogName(value: string): string {
  const name = value.trim();
  if (name.length === 0 || name.length > NAME_MAX || !isPrintableLine(name)) {
    throw new CatalogError(
      'invalid_name',
      `a name is 1-${NAME_MAX} characters on one line, without control characters`,
    );
  }
  return name;
}

export function catalogDescription(value: string): string {
  const description = value.trim();
  if (description.length > DESCRIPTION_MAX || !isStorableText(description)) {
    throw new CatalogError(
      'invalid_description',
      `a description is at most ${DESCRIPTION_MAX} characters, without NUL or unpaired surrogates`,
    );
  }
  return description;
}

export function catalogInstructions(value: string): string {
  const instructions = value.trim();
  if (instructions.length === 0 || instructions.length > INSTRUCTIONS_MAX || !isStorableText(instructions)) {
    throw new CatalogError(
      'invalid_instructions',
      `instructions are 1-${INSTRUCTIONS_MAX} characters, without NUL or unpaired surrogates`,
    );
  }
  return instructions;
}
