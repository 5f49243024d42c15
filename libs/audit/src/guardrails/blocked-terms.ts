import { type TextSpan } from './pii-detectors';

/**
 * Text folded by NFKD (full-width `Ｆａｌｃｏｎ` is `falcon`) and lower case, keeping each folded unit's original
 * offset so a match maps back to a span of the original.
 */
export interface FoldedText {
  text: string;
  /** One entry per folded unit, plus the end; null when offsets are unchanged (ASCII). */
  origin: number[] | null;
}

const ASCII_ONLY = /^[\u0000-\u007f]*$/;

export function foldText(text: string): FoldedText {
  // Most text is ASCII: one scan, no code point walk, no offset table.
  if (ASCII_ONLY.test(text)) return { text: text.toLowerCase(), origin: null };
  let folded = '';
  const origin: number[] = [];
  let offset = 0;
  for (const codePoint of text) {
    const part = fold(codePoint);
    folded += part;
    for (let i = 0; i < part.length; i++) origin.push(offset);
    offset += codePoint.length;
  }
  origin.push(offset);
  return { text: folded, origin };
}

export function foldTerm(term: string): string {
  let folded = '';
  for (const codePoint of term.trim()) folded += fold(codePoint);
  return folded;
}

function fold(codePoint: string): string {
  return codePoint.normalize('NFKD').toLowerCase();
}

const ASCII_WORD = /[a-z0-9_]/;

/**
 * A term starting or ending with an ASCII letter or digit must not touch another there (`class` is not in
 * `classic`); terms in scripts written without spaces match anywhere.
 */
export function findTerms(folded: FoldedText, terms: readonly string[]): TextSpan[] {
  const found: TextSpan[] = [];
  const text = folded.text;
  for (const term of terms) {
    const wordStart = ASCII_WORD.test(term[0] ?? '');
    const wordEnd = ASCII_WORD.test(term[term.length - 1] ?? '');
    for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + 1)) {
      const end = at + term.length;
      if (wordStart && ASCII_WORD.test(text[at - 1] ?? '')) continue;
      if (wordEnd && ASCII_WORD.test(text[end] ?? '')) continue;
      found.push(
        folded.origin ? { start: folded.origin[at], end: nextOrigin(folded.origin, end) } : { start: at, end },
      );
    }
  }
  return found;
}

// The end of a span in the original text: the start of the next original code point.
function nextOrigin(origin: readonly number[], end: number): number {
  const last = origin[end - 1];
  let i = end;
  while (i < origin.length - 1 && origin[i] === last) i++;
  return origin[i];
}
