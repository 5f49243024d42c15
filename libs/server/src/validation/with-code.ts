import { type ErrorCode } from '@fed/contracts';
import { type ValidationArguments, type ValidationOptions } from 'class-validator';

export type ValidationMessage = string | ((args: ValidationArguments) => string);

export interface ConstraintContext {
  code?: ErrorCode;
}

/** `$path` in a message becomes the property's path from the top of the request (`messages[0].role`). */
export function withCode(
  code: ErrorCode,
  message?: ValidationMessage,
  options: ValidationOptions = {},
): ValidationOptions {
  return {
    ...options,
    context: { ...(options.context as object | undefined), code },
    ...(message === undefined ? {} : { message }),
  };
}
