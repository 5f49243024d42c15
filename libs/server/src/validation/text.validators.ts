import { isStorableText } from '@fed/contracts';
import { ValidateBy, type ValidationOptions, buildMessage } from 'class-validator';

export const IS_STORABLE_TEXT = 'isStorableText';

/** No NUL, no unpaired surrogate: PostgreSQL and JSON keep it exactly. */
export function IsStorableText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: IS_STORABLE_TEXT,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isStorableText(value),
        defaultMessage: buildMessage(
          (each) => `${each}$property must be text without NUL or unpaired surrogate characters`,
          options,
        ),
      },
    },
    options,
  );
}

/** Counted as code points (an emoji is one). */
export function MaxCharacters(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxCharacters',
      constraints: [max],
      validator: {
        validate: (value: unknown) => typeof value === 'string' && countCodePoints(value, max) <= max,
        defaultMessage: buildMessage((each) => `${each}$property must be at most $constraint1 characters`, options),
      },
    },
    options,
  );
}

export function IsNotBlank(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isNotBlank',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && value.trim() !== '',
        defaultMessage: buildMessage((each) => `${each}$property must not be empty`, options),
      },
    },
    options,
  );
}

// Stops past `max`: a 2 MB body is not spread into an array to learn it is too long.
function countCodePoints(value: string, max: number): number {
  if (value.length <= max) return value.length;
  let count = 0;
  for (const _ of value) {
    if (++count > max) break;
  }
  return count;
}
