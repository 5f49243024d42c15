import { type Logger } from '@fed/observability';
import { type StatWatcher, unwatchFile, watchFile } from 'node:fs';
import { type RoutingTable, buildRoutingTable } from './routing-table';
import { readRoutingFile } from './routing-file';

/**
 * A bad file stops the start; later, an invalid change is logged and the table in force stays. Polled,
 * so a Kubernetes ConfigMap's symlink swap is seen.
 */
export class RoutingSource {
  private watcher: StatWatcher | undefined;
  private reloading: Promise<void> = Promise.resolve();

  private constructor(
    private current: RoutingTable,
    private readonly file: string | undefined,
    private readonly logger: Logger,
  ) {}

  static async open(
    file: string | undefined,
    logger: Logger,
    options: { pollMs?: number } = {},
  ): Promise<RoutingSource> {
    const table = file ? await readRoutingFile(file) : buildRoutingTable({});
    const source = new RoutingSource(table, file, logger);
    if (file) {
      source.watcher = watchFile(file, { interval: options.pollMs ?? 1000, persistent: false }, (now, before) => {
        if (now.mtimeMs !== before.mtimeMs || now.size !== before.size || now.ino !== before.ino) void source.reload();
      });
    }
    logger.info(
      { file: file ?? null, models: table.models.map((m) => m.name) },
      file ? 'gateway routing loaded' : 'no LLM_GATEWAY_ROUTING_FILE: the gateway serves the demo model only',
    );
    return source;
  }

  get table(): RoutingTable {
    return this.current;
  }

  reload(): Promise<void> {
    if (!this.file) return Promise.resolve();
    const file = this.file;
    this.reloading = this.reloading.then(async () => {
      try {
        this.current = await readRoutingFile(file);
        this.logger.info({ file, models: this.current.models.map((m) => m.name) }, 'gateway routing reloaded');
      } catch (error) {
        this.logger.error(
          { err: error, file },
          'the changed routing file is invalid: the previous routing stays in force',
        );
      }
    });
    return this.reloading;
  }

  close(): void {
    if (this.file && this.watcher) unwatchFile(this.file);
    this.watcher = undefined;
  }
}
