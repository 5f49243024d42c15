import { francAll } from 'franc-min';

/** franc-min languages with a PostgreSQL snowball stemmer; no Serbian (franc-min mistakes Russian for it). */
const CONFIG_OF_LANGUAGE = {
  arb: 'arabic',
  deu: 'german',
  ell: 'greek',
  eng: 'english',
  fra: 'french',
  hin: 'hindi',
  hun: 'hungarian',
  ind: 'indonesian',
  ita: 'italian',
  nld: 'dutch',
  npi: 'nepali',
  por: 'portuguese',
  ron: 'romanian',
  rus: 'russian',
  spa: 'spanish',
  swe: 'swedish',
  tam: 'tamil',
  tur: 'turkish',
} as const;

export type SearchConfig = (typeof CONFIG_OF_LANGUAGE)[keyof typeof CONFIG_OF_LANGUAGE] | 'simple';

/** Every configuration a message can have: a search asks each of them, so that any message's stemming applies. */
export const SEARCH_CONFIGS: readonly SearchConfig[] = ['simple', ...Object.values(CONFIG_OF_LANGUAGE)];

// franc-min reads at most 2048 characters anyway; slicing first avoids copying a large message.
const SAMPLE_CHARACTERS = 2000;
// Below this, franc-min's guesses are wrong too often.
const MIN_CHARACTERS = 40;
// A runner-up this close to the best is no decision (Danish between Dutch and Swedish, Finnish, Norwegian).
// franc scores 1 - (distance - best) / (300 x length), so the gap is taken back to a distance per 300.
const MIN_MARGIN = 2;
const LANGUAGES = Object.keys(CONFIG_OF_LANGUAGE);

/** The detected language's configuration, else `simple`; a wrong guess only costs stemming (queries use all). */
export function searchConfigOf(text: string): SearchConfig {
  const sample = text.slice(0, SAMPLE_CHARACTERS).trim();
  if (sample.length < MIN_CHARACTERS) return 'simple';
  const [best, runnerUp] = francAll(sample, { only: LANGUAGES, minLength: MIN_CHARACTERS });
  if (!best || best[0] === 'und') return 'simple';
  if (runnerUp && (1 - runnerUp[1]) * sample.length < MIN_MARGIN) return 'simple';
  return CONFIG_OF_LANGUAGE[best[0] as keyof typeof CONFIG_OF_LANGUAGE] ?? 'simple';
}
