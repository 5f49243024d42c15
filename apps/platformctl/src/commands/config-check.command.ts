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

// `npm start` runs the all-in-one platform with this tool beside it: the default check. A distributed service's
// container checks itself with `--app NAME`.
const ALL_IN_ONE: readonly AppName[] = ['platform', 'platformctl'];

/** Checks an app's environment as its boot would, plus what its work needs: starting but unable to work fails too. */
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
