import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * How a running process tells others how to reach it. It names the process, so a reader can tell a file
 * left by one that is gone, and the writer removes only its own.
 */
export interface ProcessRecord {
  version: 1;
  pid: number;
}

export class ProcessFile<Record extends ProcessRecord> {
  constructor(
    readonly file: string,
    private readonly isRecord: (value: Partial<Record>) => boolean,
  ) {}

  static in<Record extends ProcessRecord>(
    dataDir: string,
    name: string,
    isRecord: (value: Partial<Record>) => boolean,
  ): ProcessFile<Record> {
    return new ProcessFile(path.join(dataDir, name), isRecord);
  }

  // Renamed into place, so a reader never sees half of it.
  async publish(record: Omit<Record, 'version' | 'pid'>): Promise<void> {
    const draft = `${this.file}.${process.pid}-${randomBytes(4).toString('hex')}.draft`;
    await mkdir(path.dirname(this.file), { recursive: true });
    await writeFile(draft, `${JSON.stringify({ version: 1, pid: process.pid, ...record })}\n`, { mode: 0o600 });
    await rename(draft, this.file);
  }

  /** One written by a later process stays. */
  async withdraw(): Promise<void> {
    if ((await this.read())?.pid === process.pid) await this.remove();
  }

  async remove(): Promise<void> {
    await rm(this.file, { force: true });
  }

  /** Undefined when absent, not JSON or of an unknown version. */
  async read(): Promise<Record | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const value = JSON.parse(text) as Partial<Record> | null;
      if (value?.version === 1 && Number.isInteger(value.pid) && this.isRecord(value)) return value as Record;
    } catch {
      // Not JSON: treated as absent.
    }
    return undefined;
  }

  async readLive(): Promise<Record | undefined> {
    const record = await this.read();
    return record && isAlive(record.pid) ? record : undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
