import {
  type CatalogAdminService,
  CatalogError,
  type CatalogFields,
  type CatalogItem,
  type CatalogKind,
  INSTRUCTIONS_MAX,
  catalogAdminServiceFor,
  catalogEntities,
} from '@fed/agent';
import { type Command } from 'commander';
import { open } from 'node:fs/promises';
import { withEntities } from './database';

function withCatalog<T>(work: (catalog: CatalogAdminService) => Promise<T>): Promise<T> {
  return withEntities(catalogEntities, (dataSource) => work(catalogAdminServiceFor(dataSource)));
}

// Four bytes per character at most: a larger file cannot hold valid instructions, so it is not read whole.
const MAX_FILE_BYTES = INSTRUCTIONS_MAX * 4;

export async function readInstructionsFile(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    const handle = await open(file, 'r');
    try {
      bytes = Buffer.alloc(MAX_FILE_BYTES + 1);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
      bytes = bytes.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new CatalogError('invalid_instructions', `cannot read ${file}: ${(error as Error).message}`);
  }
  if (bytes.length > MAX_FILE_BYTES) {
    throw new CatalogError('invalid_instructions', `${file} is too large for ${INSTRUCTIONS_MAX} characters`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CatalogError('invalid_instructions', `${file} is not UTF-8 text`);
  }
}

interface TextOptions {
  key?: string;
  name?: string;
  description?: string;
  instructions?: string;
  instructionsFile?: string;
}

async function fieldsOf(options: TextOptions): Promise<CatalogFields> {
  if (options.instructions !== undefined && options.instructionsFile !== undefined) {
    throw new CatalogError('invalid_instructions', 'give --instructions or --instructions-file, not both');
  }
  const instructions =
    options.instructionsFile !== undefined
      ? await readInstructionsFile(options.instructionsFile)
      : options.instructions;
  return { key: options.key, name: options.name, description: options.description, instructions };
}

// How `list` shows whether a playbook or skill is offered: [enabled, not enabled].
const stateWords: Partial<Record<CatalogKind, [string, string]>> = {
  playbook: ['active', 'deactivated'],
  skill: ['available', 'disabled'],
};

function describe(item: CatalogItem): string {
  const words = stateWords[item.kind];
  const state = words && (item.enabled ? words[0] : words[1]);
  return [
    item.ref,
    ...(state ? [state] : []),
    JSON.stringify(item.name),
    `description=${JSON.stringify(item.description)}`,
    `instructions=${item.instructions.length} chars`,
    `updated=${item.updatedAt.toISOString()}`,
  ].join('  ');
}

interface Group {
  kind: CatalogKind;
  command: string;
  about: string;
  ref: string;
  /** Commands that switch a playbook or skill off and on, with what they mean for chat requests. */
  toggle?: { off: string; on: string; offEffect: string; past: [string, string] };
}

const groups: Group[] = [
  { kind: 'persona', command: 'personas', about: "personas of the agent (the chat request's personaKey)", ref: 'key' },
  {
    kind: 'playbook',
    command: 'playbooks',
    about: "playbooks of the agent (the chat request's playbookId)",
    ref: 'id',
    toggle: {
      off: 'deactivate',
      on: 'activate',
      offEffect: 'chat requests naming it are refused (400) and GET /v1/playbooks no longer lists it',
      past: ['deactivated', 'activated'],
    },
  },
  {
    kind: 'skill',
    command: 'skills',
    about: "skills of the agent (the chat request's skillIds)",
    ref: 'id',
    toggle: {
      off: 'disable',
      on: 'enable',
      offEffect: 'chat requests naming it ignore it and GET /v1/skills no longer lists it',
      past: ['disabled', 'enabled'],
    },
  },
];

function textOptions(command: Command, withKey: boolean): Command {
  if (withKey) command.option('--key <key>', 'the personaKey: 1-64 characters of a-z, 0-9, _ and -');
  return command
    .option('--description <text>', 'shown in the list (at most 2,000 characters)')
    .option('--instructions <text>', "added to the agent's system prompt (at most 20,000 characters)")
    .option('--instructions-file <path>', 'read the instructions from a UTF-8 file');
}

function registerGroup(program: Command, group: Group): void {
  const { kind } = group;
  const parent = program.command(group.command).description(group.about);

  const create = parent.command('create').description(`create a ${kind}`);
  textOptions(
    create.requiredOption('--name <name>', 'shown in the list (1-200 characters, one line)'),
    kind === 'persona',
  ).action(async (options: TextOptions) => {
    if (options.instructions === undefined && options.instructionsFile === undefined) {
      throw new CatalogError('invalid_instructions', 'give --instructions or --instructions-file');
    }
    const fields = await fieldsOf(options);
    const item = await withCatalog((catalog) => catalog.create(kind, fields));
    process.stdout.write(`created ${kind} ${item.ref}\n`);
  });

  parent
    .command('list')
    .description(`list every ${kind}${group.toggle ? `, ${group.toggle.past[0]} ones included` : ''}`)
    .action(async () => {
      const items = await withCatalog((catalog) => catalog.list(kind));
      if (items.length === 0) process.stdout.write(`no ${group.command}\n`);
      for (const item of items) process.stdout.write(`${describe(item)}\n`);
    });

  const update = parent
    .command(`update <${group.ref}>`)
    .description(`change a ${kind}'s name, description or instructions`);
  textOptions(update.option('--name <name>', 'shown in the list (1-200 characters, one line)'), false).action(
    async (ref: string, options: TextOptions) => {
      const fields = await fieldsOf(options);
      await withCatalog((catalog) => catalog.update(kind, ref, fields));
      process.stdout.write(`updated ${kind} ${ref}\n`);
    },
  );

  if (group.toggle && kind !== 'persona') {
    const { off, on, offEffect, past } = group.toggle;
    for (const [verb, enabled, done] of [
      [off, false, past[0]],
      [on, true, past[1]],
    ] as const) {
      parent
        .command(`${verb} <id>`)
        .description(enabled ? `${verb} a ${kind} again` : `${verb} a ${kind}: ${offEffect}`)
        .action(async (id: string) => {
          await withCatalog((catalog) => catalog.setEnabled(kind, id, enabled));
          process.stdout.write(`${done} ${kind} ${id}\n`);
        });
    }
  }

  parent
    .command(`delete <${group.ref}>`)
    .description(`delete a ${kind}; turns that named it go on without it`)
    .action(async (ref: string) => {
      await withCatalog((catalog) => catalog.delete(kind, ref));
      process.stdout.write(`deleted ${kind} ${ref}\n`);
    });
}

/** `platformctl personas|playbooks|skills`: the agent catalog (read per request: no cache to tell). */
export function registerCatalog(program: Command): void {
  for (const group of groups) registerGroup(program, group);
}
