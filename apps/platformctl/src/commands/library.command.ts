import {
  type LibraryAdminService,
  LibraryError,
  type LibraryItemEntity,
  libraryAdminServiceFor,
  libraryEntities,
} from '@fed/agent';
import { openBlobStore } from '@fed/storage';
import { type Command } from 'commander';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { withEntities } from './database';

function withLibrary<T>(work: (library: LibraryAdminService) => Promise<T>): Promise<T> {
  return withEntities(libraryEntities, async (dataSource, config) => {
    const blobs = await openBlobStore(config.storage);
    try {
      return await work(libraryAdminServiceFor(dataSource, blobs.store));
    } finally {
      await blobs.close();
    }
  });
}

function describe(item: LibraryItemEntity): string {
  return [
    item.filepath,
    item.kind,
    JSON.stringify(item.title),
    item.mimeType,
    `${item.bytes} bytes`,
    ...(item.description ? [`description=${JSON.stringify(item.description)}`] : []),
    `created=${item.createdAt.toISOString()}`,
  ].join('  ');
}

interface FileOptions {
  file: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

interface TemplateOptions {
  title: string;
  description?: string;
  text?: string;
  textFile?: string;
}

async function templateText(options: TemplateOptions): Promise<string> {
  if ((options.text === undefined) === (options.textFile === undefined)) {
    throw new LibraryError('invalid_content', 'give --text or --text-file, one of them');
  }
  if (options.text !== undefined) return options.text;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await readFile(options.textFile as string));
  } catch (error) {
    throw new LibraryError(
      'invalid_content',
      `cannot read ${options.textFile} as UTF-8 text: ${(error as Error).message}`,
    );
  }
}

/** `platformctl library`: `GET /v1/library` files and templates (SaaS); read per request: no cache to tell. */
export function registerLibrary(program: Command): void {
  const library = program
    .command('library')
    .description('shared files and prompt templates users attach by filepath (GET /v1/library, SaaS only)');

  library
    .command('add <filepath>')
    .description('publish a file: its bytes go to the blob store, then it is listed')
    .requiredOption('--file <path>', 'the local file to publish')
    .option('--title <title>', 'shown in the list (default: the last segment of the filepath)')
    .option('--description <text>', 'shown in the list (at most 2,000 characters)')
    .option('--mime-type <type>', "the file's type (default: guessed from the filepath's extension)")
    .action(async (filepath: string, options: FileOptions) => {
      // Checked before anything is stored: a directory or a missing file is the operator's mistake.
      const info = await stat(options.file).catch(() => null);
      if (!info?.isFile()) throw new LibraryError('invalid_file', `${options.file} is not a readable file`);
      const item = await withLibrary((admin) =>
        admin.addFile(
          filepath,
          {
            ...(options.title !== undefined ? { title: options.title } : {}),
            ...(options.description !== undefined ? { description: options.description } : {}),
            ...(options.mimeType !== undefined ? { mimeType: options.mimeType } : {}),
          },
          createReadStream(options.file),
        ),
      );
      process.stdout.write(`added file ${item.filepath} (${item.bytes} bytes, ${item.mimeType})\n`);
    });

  library
    .command('add-template <filepath>')
    .description('publish a prompt template (its text is listed with it)')
    .requiredOption('--title <title>', 'shown in the list (1-200 characters, one line)')
    .option('--text <text>', "the template's text")
    .option('--text-file <path>', 'read the text from a UTF-8 file')
    .option('--description <text>', 'shown in the list (at most 2,000 characters)')
    .action(async (filepath: string, options: TemplateOptions) => {
      const text = await templateText(options);
      const item = await withLibrary((admin) =>
        admin.addTemplate(filepath, {
          title: options.title,
          text,
          ...(options.description !== undefined ? { description: options.description } : {}),
        }),
      );
      process.stdout.write(`added template ${item.filepath}\n`);
    });

  library
    .command('list')
    .description('list every library item, in filepath order')
    .action(async () => {
      const items = await withLibrary((admin) => admin.list());
      if (items.length === 0) process.stdout.write('no library items\n');
      for (const item of items) process.stdout.write(`${describe(item)}\n`);
    });

  library
    .command('remove <filepath>')
    .description('remove an item: it leaves the list at once, then its bytes are deleted')
    .action(async (filepath: string) => {
      await withLibrary((admin) => admin.remove(filepath));
      process.stdout.write(`removed ${filepath}\n`);
    });
}
