import { type Command } from 'commander';
import { loadConfig } from '@fed/config';
import { pendingMigrations, runMigrations, startEmbeddedPostgres } from '@fed/persistence';

/** Runs `work` against DATABASE_URL, or against the embedded database under DATA_DIR when unset. */
async function withDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const config = loadConfig('platformctl');
  if (config.database.url) return work(config.database.url);
  const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir });
  try {
    return await work(embedded.url);
  } finally {
    await embedded.stop();
  }
}

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (DATABASE_URL, or the embedded database under DATA_DIR)')
    .option('--dry-run', 'list pending migrations without applying them')
    .action(async (options: { dryRun?: boolean }) => {
      if (options.dryRun) {
        const pending = await withDatabase(pendingMigrations);
        process.stdout.write(pending.length === 0 ? 'no pending migrations\n' : `${pending.join('\n')}\n`);
        return;
      }
      const applied = await withDatabase(runMigrations);
      process.stdout.write(
        applied.length === 0
          ? 'database schema up to date\n'
          : `applied:\n${applied.map((n) => `  ${n}`).join('\n')}\n`,
      );
    });
}
