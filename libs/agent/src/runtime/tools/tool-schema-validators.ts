import Ajv, { type ValidateFunction } from 'ajv';

/** Distinct schemas kept compiled; past it, the least recently used is dropped (external tools' schemas change). */
const MAX_SCHEMAS = 5000;

type Compiled = { schema: object; validate: ValidateFunction } | { error: Error };

/**
 * One Ajv for all tool schemas. `addUsedSchema: false` keeps each schema's `$id` unregistered, so tools' schemas
 * never meet (no `$id` conflicts, no cross-`$ref`); `removeSchema` forgets what the cache drops.
 */
const ajv = new Ajv({ allErrors: true, strict: false, addUsedSchema: false });
const byText = new Map<string, Compiled>();
const byObject = new WeakMap<object, Compiled>();

/** A tool schema's validator, compiled once per distinct schema; a schema that fails to compile throws every time. */
export function toolSchemaValidator(schema: object): ValidateFunction {
  let compiled = byObject.get(schema);
  if (!compiled) {
    const text = JSON.stringify(schema);
    compiled = byText.get(text);
    if (compiled) byText.delete(text);
    else compiled = compile(schema);
    byText.set(text, compiled);
    if (byText.size > MAX_SCHEMAS) evictOldest();
    byObject.set(schema, compiled);
  }
  if ('error' in compiled) throw compiled.error;
  return compiled.validate;
}

function compile(schema: object): Compiled {
  // A copy: Ajv keeps the schema it compiled, and the caller's object may change after.
  const copy = structuredClone(schema);
  try {
    return { schema: copy, validate: ajv.compile(copy) };
  } catch (error) {
    ajv.removeSchema(copy);
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }
}

function evictOldest(): void {
  const [text, compiled] = byText.entries().next().value as [string, Compiled];
  byText.delete(text);
  if ('schema' in compiled) ajv.removeSchema(compiled.schema);
}
