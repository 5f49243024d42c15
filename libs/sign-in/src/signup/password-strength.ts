import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/** Why a password is easy to guess, in the words of the pages' catalog. */
export type StrengthProblem = 'keyboard' | 'repeat' | 'sequence' | 'dates' | 'common' | 'words' | 'personal';

export type StrengthVerdict = { strong: true } | { strong: false; problem?: StrengthProblem };

// 3 is zxcvbn's "safely unguessable".
const MIN_SCORE = 3;

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

// Loaded lazily (large dictionaries): only processes that show the pages pay. The Levenshtein matcher is
// off: its cost per check would make a flood of posts block the event loop.
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

/** For a password that already meets the length rules. */
export async function passwordStrength(password: string, personal: readonly string[]): Promise<StrengthVerdict> {
  const result = (await zxcvbn()).check(password, [...personal]);
  if (result.score >= MIN_SCORE) return { strong: true };
  const warning = result.feedback.warning;
  return { strong: false, problem: warning ? problemOf[warning] : undefined };
}

export function personalWords(email: string, username: string): string[] {
  return [email, email.split('@')[0], username];
}
