import { type Command } from 'commander';
import { pendingMigrations, runMigrations } from '@fed/persistence';
import { withDatabase } from './database';

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
