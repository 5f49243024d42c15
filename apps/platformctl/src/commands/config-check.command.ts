import { type Command, InvalidArgumentError } from 'commander';
import { type AppName, ConfigError, appNames, describeConfig, isAppName, loadConfig } from '@fed/config';

function parseApp(value: string): AppName {
  if (!isAppName(value)) throw new InvalidArgumentError(`expected one of ${appNames.join(', ')}`);
  return value;
}

/** Validates the environment for one app (or all) exactly as the app would at boot. */
export function registerConfigCheck(program: Command): void {
  program
    .command('config')
    .description('configuration commands')
    .command('check')
    .description('validate the environment for an app as it would be read at boot; secrets are masked')
    .option('--app <name>', `app to check (${appNames.join(', ')}); all when omitted`, parseApp)
    .action((options: { app?: AppName }) => {
      const targets = options.app ? [options.app] : appNames;
      let failed = 0;
      for (const app of targets) {
        try {
          loadConfig(app);
          process.stdout.write(`${app}: ok\n`);
          for (const row of describeConfig(app)) {
            process.stdout.write(`  ${row.name.padEnd(26)} ${row.value} (${row.source})\n`);
          }
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
          failed++;
          process.stdout.write(`${error.message}\n`);
        }
      }
      if (failed > 0) process.exitCode = 1;
    });
}
