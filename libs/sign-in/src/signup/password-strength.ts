import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/** Why a password is easy to guess, in the words of the pages' catalog. */
export type StrengthProblem = 'keyboard' | 'repeat' | 'sequence' | 'dates' | 'common' | 'words' | 'personal';

export type StrengthVerdict = { strong: true } | { strong: false; problem?: StrengthProblem };

// zxcvbn scores 0-4; 3 is "safely unguessable" (about 10^8 guesses and more).
const MIN_SCORE = 3;

// zxcvbn's warning keys (its feedback without translations), grouped into what the pages explain.
const problemOf: Record<string, StrengthProblem> = {
  straightRow: 'keyboard',
  keyPattern: 'keyboard',
  simpleRepeat: 'repeat',
  extendedRepeat: 'repeat',
  sequences: 'sequence',
  recentYears: 'dates',
  dates: 'dates',
  topTen: 'common',
  topHundred: 'common',
  common: 'common',
  similarToCommon: 'common',
  pwned: 'common',
  wordByItself: 'words',
  namesByThemselves: 'words',
  commonNames: 'words',
  userInputs: 'personal',
};

let estimator: Promise<ZxcvbnFactory> | undefined;

// Loaded and built on first use (about 150 ms, some 20 MB of dictionaries, 35 MB of RSS): only processes
// that show the pages pay, not every process that imports this library.
// The Levenshtein matcher is off: it costs 100-450 ms of event loop per check, a gift to a flood of posts.
function zxcvbn(): Promise<ZxcvbnFactory> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, english] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...english.dictionary },
      graphs: common.adjacencyGraphs,
      maxLength: 128,
    });
  })();
  return estimator;
}

/** zxcvbn's verdict on a password that already meets the length rules; `personal`: the user's own words. */
export async function passwordStrength(password: string, personal: readonly string[]): Promise<StrengthVerdict> {
  const result = (await zxcvbn()).check(password, [...personal]);
  if (result.score >= MIN_SCORE) return { strong: true };
  const warning = result.feedback.warning;
  return { strong: false, problem: warning ? problemOf[warning] : undefined };
}

/** The words of an account a password must not be built on: the address, its local part, the username. */
export function personalWords(email: string, username: string): string[] {
  return [email, email.split('@')[0], username];
}
