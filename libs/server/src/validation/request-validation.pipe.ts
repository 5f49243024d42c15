import { type ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { ApiError, type ErrorCode } from '@fed/contracts';
import * as classTransformer from 'class-transformer';
import * as classValidator from 'class-validator';
import { type ConstraintContext } from './with-code';

/** The default code of a failure depends on it. */
export type RequestPart = 'body' | 'query' | 'param';

/** The first failure, in the DTO's declaration order. */
export interface ValidationFailure {
  part: RequestPart;
  code: ErrorCode;
  message: string;
  path: string;
}

const DEFAULT_CODE: Record<RequestPart, ErrorCode> = {
  body: 'invalid_request',
  query: 'invalid_parameter',
  param: 'invalid_parameter',
};

type Renderer = (failure: ValidationFailure) => Error;
const RENDERER = Symbol('fed.validation.renderer');

/** For OAuth endpoints, which answer in RFC 6749's format rather than our envelope. */
export function RenderValidationFailure(render: Renderer): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(RENDERER, render, target);
  };
}

function rendererOf(metatype: unknown): Renderer | undefined {
  return typeof metatype === 'function' ? (Reflect.getMetadata(RENDERER, metatype) as Renderer | undefined) : undefined;
}

const REFUSES_UNKNOWN_FIELDS = Symbol('fed.validation.refusesUnknownFields');

/**
 * Where dropping an unknown field silently would let a client believe it changed something (`PATCH
 * /v1/users/me` with `role`): the first one is a 400 with `code`.
 */
export function RefuseUnknownFields(code: ErrorCode = 'invalid_parameter'): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(REFUSES_UNKNOWN_FIELDS, code, target);
  };
}

// Carries the errors back to transform(), which knows the request part they belong to.
class RefusedInput extends Error {
  constructor(readonly errors: classValidator.ValidationError[]) {
    super('refused input');
  }
}

/**
 * Undeclared properties are dropped, not refused (the spec: unknown fields are ignored), unless
 * @RefuseUnknownFields(); `__proto__`, `constructor` and `prototype` keys go before anything reads the
 * value. No implicit conversion. Import DTO classes as values, not `import { type X }`, or their
 * parameter metadata says `Object` and nothing is validated.
 */
@Injectable()
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      whitelist: true,
      forbidUnknownValues: false,
      validationError: { target: true, value: false },
      validatorPackage: classValidator,
      transformerPackage: classTransformer,
      exceptionFactory: (errors: classValidator.ValidationError[]) => new RefusedInput(errors),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (!this.isDto(metadata)) return value;
    const part = metadata.type as RequestPart;
    try {
      return await this.toDto(value, metadata, part);
    } catch (error) {
      // Nest runs a handler's pipes at once and answers with the first failure: a yield reports a bad path
      // before the query or body, whatever the order of the parameters.
      if (part !== 'param') await new Promise((resolve) => setImmediate(resolve));
      throw error;
    }
  }

  private async toDto(value: unknown, metadata: ArgumentMetadata, part: RequestPart): Promise<unknown> {
    // An absent body (no JSON content type) is an empty object.
    if (part === 'body' && value !== undefined && !isJsonObject(value)) {
      throw this.render(metadata.metatype, {
        part,
        code: 'invalid_request',
        message: 'body must be a JSON object',
        path: '',
      });
    }
    const unknown = unknownFieldFailure(metadata.metatype, value, part);
    if (unknown) throw this.render(metadata.metatype, unknown);
    try {
      return await super.transform(value, metadata);
    } catch (error) {
      if (!(error instanceof RefusedInput)) throw error;
      throw this.render(metadata.metatype, firstFailure(error.errors, part));
    }
  }

  private isDto(metadata: ArgumentMetadata): boolean {
    const { type } = metadata;
    return (type === 'body' || type === 'query' || type === 'param') && this.toValidate(metadata);
  }

  private render(metatype: unknown, failure: ValidationFailure): Error {
    const render = rendererOf(metatype);
    return render ? render(failure) : new ApiError(failure.code, failure.message);
  }
}

function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// A hostile field name is cut short (JSON.stringify escapes the rest).
const MAX_NAMED_FIELD = 64;

function unknownFieldFailure(metatype: unknown, value: unknown, part: RequestPart): ValidationFailure | undefined {
  if (typeof metatype !== 'function' || !isJsonObject(value)) return undefined;
  const code = Reflect.getMetadata(REFUSES_UNKNOWN_FIELDS, metatype) as ErrorCode | undefined;
  if (code === undefined) return undefined;
  const declared = [
    ...new Set(
      classValidator
        .getMetadataStorage()
        .getTargetValidationMetadatas(metatype as new () => unknown, '', false, false)
        .map((metadata) => metadata.propertyName),
    ),
  ];
  const field = Object.keys(value as object).find((key) => !declared.includes(key));
  if (field === undefined) return undefined;
  const named = JSON.stringify(field.length > MAX_NAMED_FIELD ? `${field.slice(0, MAX_NAMED_FIELD)}...` : field);
  return { part, code, message: `unknown field ${named}; the fields are ${declared.join(', ')}`, path: field };
}

/** Depth first, in class-validator's order (own properties, then inherited). */
function firstFailure(
  errors: readonly classValidator.ValidationError[],
  part: RequestPart,
  parentPath = '',
): ValidationFailure {
  for (const error of errors) {
    const path = joinPath(parentPath, error.property);
    const constraint = firstConstraint(error);
    if (constraint) {
      const message = (error.constraints?.[constraint] ?? `${path} is invalid`).replace(/\$path/g, path);
      const code = (error.contexts?.[constraint] as ConstraintContext | undefined)?.code ?? DEFAULT_CODE[part];
      return { part, code, message, path };
    }
    if (error.children && error.children.length > 0) return firstFailure(error.children, part, path);
  }
  return { part, code: DEFAULT_CODE[part], message: `the request ${part} is invalid`, path: parentPath };
}

function joinPath(parent: string, property: string): string {
  if (/^[0-9]+$/.test(property)) return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

/** Decorators apply bottom-up, so class-validator records them in the reverse of reading order. */
function firstConstraint(error: classValidator.ValidationError): string | undefined {
  const failed = Object.keys(error.constraints ?? {});
  if (failed.length <= 1) return failed[0];
  const target = error.target as object | undefined;
  const declared = target ? declaredConstraints(target.constructor, error.property) : [];
  return declared.find((name) => failed.includes(name)) ?? failed[0];
}

const declaredCache = new WeakMap<object, Map<string, string[]>>();

function declaredConstraints(target: object, property: string): string[] {
  let byProperty = declaredCache.get(target);
  if (!byProperty) {
    byProperty = new Map();
    declaredCache.set(target, byProperty);
  }
  let names = byProperty.get(property);
  if (!names) {
    const storage = classValidator.getMetadataStorage();
    names = storage
      .getTargetValidationMetadatas(target as new () => unknown, '', false, false)
      .filter((metadata) => metadata.propertyName === property)
      .map((metadata) => storage.getTargetValidatorConstraints(metadata.constraintCls)[0]?.name ?? metadata.type)
      .reverse();
    byProperty.set(property, names);
  }
  return names;
}
