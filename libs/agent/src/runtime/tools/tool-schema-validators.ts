import Ajv, { type ValidateFunction } from 'ajv';

/** Distinct schemas kept compiled; past it, the least recently used is dropped (external tools' schemas change). */
const MAX_SCHEMAS = 5000;

type Compiled = { schema: object; validate: ValidateFunction } | { error: Error };

/**
 * One Ajv for every tool schema of the process. `addUsedSchema: false`: a schema's `$id` is not
 * registered, so two tools' schemas never meet (one `$id` in both is no conflict, and neither can `$ref`
 * the other); `removeSchema` forgets a schema the cache drops.
 */
const ajv = new Ajv({ allErrors: true, strict: false, addUsedSchema: false });
const byText = new Map<string, Compiled>();
const byObject = new WeakMap<object, Compiled>();

/**
 * The validator of a tool's input schema, compiled once per distinct schema for every turn of the process:
 * compiling costs about a millisecond, more than the rest of opening a turn's tools. Throws when the schema
 * does not compile, every time (the failure is kept too). A schema object is taken as it was when first
 * seen: tools' schemas are constants, or read anew for each turn.
 */
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
