import Ajv, { type ValidateFunction } from 'ajv';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { RoutingError, type RoutingTable, buildRoutingTable } from './routing-table';
import { routingSchema } from './routing.schema';
import { type RoutingFile } from './routing.types';

// Compiled on first use: platformctl loads this module for commands that read no routing file.
let compiled: ValidateFunction<RoutingFile> | undefined;
function routingValidator(): ValidateFunction<RoutingFile> {
  compiled ??= new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile<RoutingFile>(routingSchema);
  return compiled;
}

/** YAML, of which JSON is a subset. */
export function parseRoutingFile(text: string, env?: Record<string, string | undefined>): RoutingTable {
  let document: unknown;
  try {
    document = parse(text, { maxAliasCount: 100 }) ?? {};
  } catch (error) {
    throw new RoutingError([`not YAML or JSON: ${(error as Error).message.split('\n')[0]}`]);
  }
  const validate = routingValidator();
  if (!validate(document)) {
    throw new RoutingError(
      (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`.trim()),
    );
  }
  return buildRoutingTable(document, env);
}

export async function readRoutingFile(file: string, env?: Record<string, string | undefined>): Promise<RoutingTable> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new RoutingError([
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    ]);
  }
  return parseRoutingFile(text, env);
}
