/**
 * What `websearch_to_tsquery` reads in `q`, tokenised as PostgreSQL 15-17 does: `or`-separated alternatives of terms
 * (words, `"phrases"`), `-` excluding (two cancel out), `!&|()<` dropped between terms, `\` escaping.
 */
interface Alternative {
  terms: number;
  exclusions: number;
}

const WHITE_SPACE = /\s/u;
const DROPPED = new Set(['!', '&', '|', '(', ')', '<']);
const WORD_CHARACTER = /[\p{L}\p{N}_-]/u;

function isWordEnd(character: string): boolean {
  return WHITE_SPACE.test(character) || DROPPED.has(character) || character === '"';
}

/** `or` at `at` is the operator: not the start of a word, and some term follows it. */
function isOrOperator(q: string, at: number): boolean {
  if (q.slice(at, at + 2).toLowerCase() !== 'or') return false;
  const next = q[at + 2];
  if (next === undefined || WORD_CHARACTER.test(next)) return false;
  return q.slice(at + 2).trim() !== '';
}

function alternatives(q: string): Alternative[] {
  const found: Alternative[] = [{ terms: 0, exclusions: 0 }];
  let excluded = false;
  let afterTerm = false;
  let at = 0;
  const addTerm = () => {
    const current = found[found.length - 1] as Alternative;
    if (excluded) current.exclusions++;
    else current.terms++;
    excluded = false;
    afterTerm = true;
  };
  while (at < q.length) {
    const character = q[at] as string;
    if (afterTerm) {
      if (WHITE_SPACE.test(character)) {
        at++;
      } else if (isOrOperator(q, at)) {
        found.push({ terms: 0, exclusions: 0 });
        afterTerm = false;
        at += 2;
      } else {
        afterTerm = false;
      }
    } else if (WHITE_SPACE.test(character) || DROPPED.has(character)) {
      at++;
    } else if (character === '-') {
      excluded = !excluded;
      at++;
    } else if (character === '"') {
      const close = q.indexOf('"', at + 1);
      const end = close === -1 ? q.length : close;
      // An empty phrase is no term.
      if (q.slice(at + 1, end).trim() !== '') addTerm();
      else afterTerm = true;
      at = end + 1;
    } else {
      while (at < q.length && !isWordEnd(q[at] as string)) at += q[at] === '\\' ? 2 : 1;
      addTerm();
    }
  }
  return found;
}

/** True when an alternative of `q` only excludes (`-foo`, `a or -b`): it matches nearly everything. */
export function onlyExcludes(q: string): boolean {
  return alternatives(q).some((alternative) => alternative.exclusions > 0 && alternative.terms === 0);
}
