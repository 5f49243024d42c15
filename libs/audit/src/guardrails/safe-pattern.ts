/** Longest pattern source a rule may have. */
export const MAX_PATTERN_LENGTH = 500;

/**
 * Why a rule's regex is refused, or null. The engine backtracks, so a pattern with exponentially many ways to
 * match would hold the event loop for minutes: quantified groups containing quantifiers or alternations,
 * backreferences, lookarounds and more than one unbounded quantifier are refused. What remains is at worst
 * quadratic over the engine's text windows (guardrail-engine.ts).
 */
export function unsafePatternReason(source: string): string | null {
  if (source.length === 0) return 'the pattern is empty';
  if (source.length > MAX_PATTERN_LENGTH) return `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(source, 'u');
  } catch (error) {
    return `the pattern is not a valid regular expression (${(error as Error).message})`;
  }
  if (/\\[1-9]|\\k</.test(source)) return 'backreferences are not allowed';
  const groups: { quantified: boolean; alternation: boolean }[] = [];
  let inClass = false;
  let unbounded = 0;
  // What the previous token was: `?` after `(` is group syntax, after a quantifier it makes it lazy, and
  // after anything else (an escaped character included) it is a quantifier.
  let previous: 'open' | 'quantifier' | 'atom' = 'atom';
  const quantify = (): 'quantifier' => {
    if (groups.length > 0) groups[groups.length - 1].quantified = true;
    return 'quantifier';
  };
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') {
      i++;
      previous = 'atom';
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    switch (char) {
      case '[':
        inClass = true;
        previous = 'atom';
        break;
      case '(':
        if (/^\(\?<?[=!]/.test(source.slice(i, i + 4))) return 'lookahead and lookbehind are not allowed';
        groups.push({ quantified: false, alternation: false });
        previous = 'open';
        break;
      case '|':
        if (groups.length > 0) groups[groups.length - 1].alternation = true;
        previous = 'atom';
        break;
      case ')': {
        const group = groups.pop();
        previous = 'atom';
        if (!group) break;
        const next = source[i + 1];
        const quantifiedGroup = next === '*' || next === '+' || next === '?' || next === '{';
        if (quantifiedGroup && group.quantified) {
          return 'a quantified group contains a quantifier (nested quantifiers backtrack catastrophically)';
        }
        if (quantifiedGroup && group.alternation && next !== '?') {
          return 'a repeated group contains an alternation (write a character class instead)';
        }
        const outer = groups[groups.length - 1];
        if (outer && (group.quantified || quantifiedGroup)) outer.quantified = true;
        if (outer && group.alternation) outer.alternation = true;
        break;
      }
      case '*':
      case '+':
        unbounded++;
        previous = quantify();
        break;
      case '{': {
        const range = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
        if (!range) {
          previous = 'atom';
          break;
        }
        if (range[2] !== undefined && range[3] === '') unbounded++;
        i += range[0].length - 1;
        previous = quantify();
        break;
      }
      case '?':
        if (previous === 'open') break;
        if (previous === 'quantifier') {
          previous = 'atom';
          break;
        }
        previous = quantify();
        break;
      default:
        previous = 'atom';
    }
  }
  // Two unbounded quantifiers in a row backtrack polynomially (cubic over a window is seconds).
  if (unbounded > 1) return 'at most one unbounded quantifier (*, + or {n,}) is allowed: bound the others ({0,50})';
  return null;
}
