import { type Command, InvalidArgumentError } from 'commander';
import {
  type AppName,
  ConfigError,
  type ConfigProblem,
  appNames,
  describeConfig,
  isAppName,
  loadConfig,
  unmetNeeds,
  variables,
} from '@fed/config';

function parseApp(value: string): AppName {
  if (!isAppName(value)) throw new InvalidArgumentError(`expected one of ${appNames.join(', ')}`);
  return value;
}

const nameWidth = Math.max(...variables.map((v) => v.name.length)) + 1;

function unmetNeedsOf(app: AppName): ConfigProblem[] | ConfigError {
  try {
    return unmetNeeds(loadConfig(app));
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

// What an install started with `npm start` runs, and so what `config check` checks unless told an app: the
// all-in-one platform and this tool beside it. A service of a distributed deployment runs in an environment of
// its own (a container), where `--app NAME` checks it.
const ALL_IN_ONE: readonly AppName[] = ['platform', 'platformctl'];

/**
 * Validates the environment for an app exactly as the app would at boot, and what its work needs besides (the
 * agent's gateway credentials): an app that would start but could not do its work fails the check too, since
 * that is what the check is run to find out. Each problem line names its app.
 */
export function registerConfigCheck(program: Command): void {
  program
    .command('config')
    .description('configuration commands')
    .command('check')
    .description(
      'validate the environment for an app as it would be read at boot, and what its work needs; secrets are masked',
    )
    .option(
      '--app <name>',
      `app to check (${appNames.join(', ')}); without it, the all-in-one install: ${ALL_IN_ONE.join(' and ')}`,
      parseApp,
    )
    .action((options: { app?: AppName }) => {
      const targets = options.app ? [options.app] : ALL_IN_ONE;
      if (!options.app) {
        process.stdout.write(
          `Checking the all-in-one install (${ALL_IN_ONE.join(', ')}); a service of a distributed deployment: --app NAME in its environment.\n`,
        );
      }
      let failed = 0;
      for (const app of targets) {
        const unmet = unmetNeedsOf(app);
        if (unmet instanceof ConfigError) {
          failed++;
          process.stdout.write(`${app}: invalid configuration, it would not start:\n`);
          for (const problem of unmet.problems)
            process.stdout.write(`  ${app}: ${problem.variable}: ${problem.problem}\n`);
          continue;
        }
        if (unmet.length === 0) {
          process.stdout.write(`${app}: ok\n`);
        } else {
          failed++;
          process.stdout.write(`${app}: starts, but cannot do its work:\n`);
          for (const need of unmet) process.stdout.write(`  ${app}: ${need.variable}: ${need.problem}\n`);
          process.stdout.write(`${app}'s variables:\n`);
        }
        for (const row of describeConfig(app)) {
          const source = row.source === 'not set' ? '' : ` (${row.source})`;
          process.stdout.write(`  ${row.name.padEnd(nameWidth)} ${row.value}${source}\n`);
        }
      }
      if (failed > 0) process.exitCode = 1;
    });
}
