import { isPrintableLine, isStorableText } from '@fed/contracts';
import { withCode } from '@fed/server';
import { Transform } from 'class-transformer';
import { ValidateBy, type ValidationOptions } from 'class-validator';
import { CatalogError, type CatalogErrorCode } from './catalog.errors';

// Lengths are counted as JavaScript and JSON count them (UTF-16 code units). For names this also
// keeps a list cursor, which carries the last name, within the cursor's 256-unit key limit.
export const NAME_MAX = 200;
export const DESCRIPTION_MAX = 2_000;
export const INSTRUCTIONS_MAX = 20_000;

const PERSONA_KEY = /^[a-z0-9_-]{1,64}$/;

/** A catalog text rule, used by the admin service (throws CatalogError) and as a class-validator decorator. */
interface TextRule {
  code: CatalogErrorCode;
  message: string;
  /** The value is trimmed before it is checked and stored. */
  trim: boolean;
  accepts(value: string): boolean;
}

const rules = {
  personaKey: {
    code: 'invalid_key',
    message: 'a persona key is 1-64 characters of a-z, 0-9, _ and -',
    trim: false,
    accepts: (value) => PERSONA_KEY.test(value),
  },
  name: {
    code: 'invalid_name',
    message: `a name is 1-${NAME_MAX} characters on one line, without control characters`,
    trim: true,
    accepts: (value) => value.length > 0 && value.length <= NAME_MAX && isPrintableLine(value),
  },
  description: {
    code: 'invalid_description',
    message: `a description is at most ${DESCRIPTION_MAX} characters, without NUL or unpaired surrogates`,
    trim: true,
    accepts: (value) => value.length <= DESCRIPTION_MAX && isStorableText(value),
  },
  instructions: {
    code: 'invalid_instructions',
    message: `instructions are 1-${INSTRUCTIONS_MAX} characters, without NUL or unpaired surrogates`,
    trim: true,
    accepts: (value) => value.length > 0 && value.length <= INSTRUCTIONS_MAX && isStorableText(value),
  },
} as const satisfies Record<string, TextRule>;

function checked(rule: TextRule, value: string): string {
  const text = rule.trim ? value.trim() : value;
  if (!rule.accepts(text)) throw new CatalogError(rule.code, rule.message);
  return text;
}

/** The rule as a DTO property decorator, refusing with the code the service's error maps to; a trimmed rule also trims the value the DTO keeps. */
function decoratorOf(rule: TextRule, options?: ValidationOptions): PropertyDecorator {
  const trim = Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));
  const check = ValidateBy(
    {
      name: rule.code,
      validator: { validate: (value: unknown) => typeof value === 'string' && rule.accepts(value) },
    },
    withCode(CatalogError.apiCodes[rule.code], rule.message, options),
  );
  return (target, property) => {
    if (rule.trim) trim(target, property);
    check(target, property);
  };
}

export function isPersonaKey(value: unknown): value is string {
  return typeof value === 'string' && rules.personaKey.accepts(value);
}

export const personaKey = (value: string): string => checked(rules.personaKey, value);
export const catalogName = (value: string): string => checked(rules.name, value);
export const catalogDescription = (value: string): string => checked(rules.description, value);
export const catalogInstructions = (value: string): string => checked(rules.instructions, value);

/** @openapi {"type": "string", "pattern": "^[a-z0-9_-]{1,64}$"} */
export function IsPersonaKey(options?: ValidationOptions): PropertyDecorator {
  return decoratorOf(rules.personaKey, options);
}

/** @openapi {"type": "string", "minLength": 1, "maxLength": 200} */
export function IsCatalogName(options?: ValidationOptions): PropertyDecorator {
  return decoratorOf(rules.name, options);
}

/** @openapi {"type": "string", "maxLength": 2000} */
export function IsCatalogDescription(options?: ValidationOptions): PropertyDecorator {
  return decoratorOf(rules.description, options);
}

/** @openapi {"type": "string", "minLength": 1, "maxLength": 20000} */
export function IsCatalogInstructions(options?: ValidationOptions): PropertyDecorator {
  return decoratorOf(rules.instructions, options);
}
