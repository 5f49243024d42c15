import type { TaskFile } from '@fed/contracts';
import { DELIVERABLE_PATH, MAX_DELIVERABLE_PATH, deliverablePathProblem } from '@fed/conversations';
import { DeliverableRefusedError, MAX_DELIVERABLE_BYTES } from '../output/turn-deliverables';
import { type AgentTool, type ToolContext, type ToolOutcome, quoted } from './agent-tool';

interface WriteFileArgs {
  filepath: string;
  content: string;
  mimeType?: string;
  primary?: boolean;
}

/** Saves a file for the user: a deliverable of the answer (`deliverables[]`), downloadable beside it. */
export class WriteFileTool implements AgentTool<WriteFileArgs> {
  readonly name = 'write_file';
  readonly description =
    'Save a file for the user (a report, a table, code, a draft). The user receives it as a download with your ' +
    'answer; mention it in your answer instead of repeating its content. Writing the same filepath again ' +
    'replaces the file. Mark the main result with primary: true.';
  readonly parameters = {
    type: 'object',
    properties: {
      filepath: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_DELIVERABLE_PATH,
        pattern: DELIVERABLE_PATH.source,
        description: 'Relative path with extension, such as "report.md" or "data/q3.csv".',
      },
      content: { type: 'string', description: `The file's text (at most ${MAX_DELIVERABLE_BYTES} bytes in UTF-8).` },
      mimeType: {
        type: 'string',
        maxLength: 255,
        description: 'Media type such as "text/csv"; omitted, it follows from the extension.',
      },
      primary: { type: 'boolean', description: 'This file is the main result of your answer.' },
    },
    required: ['filepath', 'content'],
    additionalProperties: false,
  };

  describe(args: WriteFileArgs): { title: string; description: string } {
    return { title: 'Writing a file', description: quoted(args.filepath, 64) };
  }

  async run(args: WriteFileArgs, context: ToolContext): Promise<ToolOutcome> {
    const refused = (error: string): ToolOutcome => ({
      status: 'failed',
      error,
      label: { title: 'Could not write a file', description: quoted(args.filepath, 64) },
    });
    const problem = deliverablePathProblem(args.filepath);
    if (problem) return refused(`${problem}.`);
    if (Buffer.byteLength(args.content, 'utf8') > MAX_DELIVERABLE_BYTES) {
      return refused(`The content is larger than ${MAX_DELIVERABLE_BYTES} bytes; split it into several files.`);
    }
    let saved;
    try {
      saved = await context.deliverables.save({
        filepath: args.filepath,
        content: args.content,
        ...(args.mimeType !== undefined ? { mimeType: args.mimeType } : {}),
        ...(args.primary !== undefined ? { primary: args.primary } : {}),
      });
    } catch (error) {
      if (error instanceof DeliverableRefusedError) return refused(`${error.message}.`);
      throw error;
    }
    const size = saved.size ?? 0;
    const file: TaskFile = {
      filename: saved.filename,
      size,
      filepath: saved.filepath,
      ...(saved.mimeType ? { mimeType: saved.mimeType } : {}),
    };
    return {
      status: 'completed',
      content: `Saved ${saved.filepath} (${size} bytes${saved.mimeType ? `, ${saved.mimeType}` : ''}); the user receives it with your answer.`,
      label: { title: 'Wrote a file', description: `${quoted(saved.filepath, 64)}, ${bytesInWords(size)}` },
      files: [file],
    };
  }
}

function bytesInWords(bytes: number): string {
  if (bytes < 1024) return bytes === 1 ? '1 byte' : `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
