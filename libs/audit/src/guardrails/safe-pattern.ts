/** Longest pattern source a rule may have. */
export const MAX_PATTERN_LENGTH = 500;

/**
 * Why a rule's regular expression is refused, or null when it is accepted. JavaScript's engine
 * backtracks, so a pattern that can match the same text in exponentially many ways ("catastrophic
 * backtracking") would hold the event loop for minutes on one message. Refused: a quantified group
 * that contains a quantifier (`(a+)+`, `(\w*x?)*`) or an alternation (`(a|aa)*`), backreferences and
 * lookarounds (`\1`, `(?=`, `(?<=`). What remains can only backtrack polynomially, and each scan is
 * bounded by the text windows the engine runs it over (guardrail-engine.ts).
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
  // Each open group: whether a quantifier or an alternation occurs inside it.
  const groups: { quantified: boolean; alternation: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    switch (char) {
      case '[':
        inClass = true;
        break;
      case '(':
        if (/^\(\?<?[=!]/.test(source.slice(i, i + 4))) return 'lookahead and lookbehind are not allowed';
        groups.push({ quantified: false, alternation: false });
        break;
      case '|':
        if (groups.length > 0) groups[groups.length - 1].alternation = true;
        break;
      case ')': {
        const group = groups.pop();
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
      case '{':
        if (groups.length > 0) groups[groups.length - 1].quantified = true;
        break;
      case '?':
        // `(?:`, `(?<name>` and a lazy `+?` are not quantifiers of their own.
        if (source[i - 1] !== '(' && !'*+?}'.includes(source[i - 1] ?? '') && groups.length > 0) {
          groups[groups.length - 1].quantified = true;
        }
        break;
    }
  }
  return null;
}
