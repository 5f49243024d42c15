import { findTerms, foldText } from './blocked-terms';
import { type GuardrailRule, type GuardrailStage } from './guardrail-rules';
import { PII_DETECTORS, type TextSpan, detectPii } from './pii-detectors';

/** Characters of context kept on each side of a match in an alert's excerpt. */
export const EXCERPT_CONTEXT = 40;
/** Longest part of a match kept in an excerpt. */
export const EXCERPT_MATCH = 80;
/** A pattern runs over windows of this many characters, overlapping by PATTERN_OVERLAP. */
export const PATTERN_WINDOW = 4096;
/** A pattern's matches are found up to this length (a longer match is cut at the window's end). */
export const PATTERN_OVERLAP = 256;
export const REDACTED = '[REDACTED]';

export interface GuardrailFinding {
  rule: GuardrailRule;
  matchCount: number;
  /** Bounded, with every PII match in it masked (`[email]`, `[phone]`, `[payment_card]`). */
  excerpt: string;
}

export interface GuardrailVerdict {
  findings: GuardrailFinding[];
  blockedBy?: GuardrailRule;
}

/** The configured rules, applied to the text of one stage. Pure: recording alerts is the caller's job. */
export class GuardrailEngine {
  constructor(readonly rules: readonly GuardrailRule[]) {}

  appliesTo(stage: GuardrailStage): boolean {
    return this.rules.some((rule) => rule.stages.includes(stage));
  }

  check(stage: GuardrailStage, text: string): GuardrailVerdict {
    const findings: GuardrailFinding[] = [];
    let folded: ReturnType<typeof foldText> | undefined;
    for (const rule of this.rules) {
      if (!rule.stages.includes(stage)) continue;
      if (rule.kind === 'blocked_terms') folded ??= foldText(text);
      const spans = matchesOf(rule, text, folded);
      if (spans.length === 0) continue;
      // A pattern's match may be the secret it looks for, so it is masked like PII; blocked terms stay readable.
      const excerpt = excerptOf(
        text,
        spans[0],
        rule.kind !== 'blocked_terms',
        rule.kind === 'pattern' ? '[match]' : '[pii]',
      );
      findings.push({ rule, matchCount: spans.length, excerpt });
    }
    return { findings, blockedBy: findings.find((finding) => finding.rule.action === 'block')?.rule };
  }

  redact(stage: GuardrailStage, text: string): string {
    const rules = this.rules.filter((rule) => rule.action === 'redact' && rule.stages.includes(stage));
    if (rules.length === 0) return text;
    const folded = foldText(text);
    return replaceSpans(
      text,
      rules.flatMap((rule) => matchesOf(rule, text, folded)),
      () => REDACTED,
    );
  }
}

function matchesOf(rule: GuardrailRule, text: string, folded: ReturnType<typeof foldText> | undefined): TextSpan[] {
  switch (rule.kind) {
    case 'pii':
      return rule.detectors.flatMap((detector) => detectPii(detector, text)).sort((a, b) => a.start - b.start);
    case 'blocked_terms':
      return findTerms(folded ?? foldText(text), rule.terms).sort((a, b) => a.start - b.start);
    case 'pattern':
      return patternMatches(rule.pattern, text);
  }
}

// Windows bound what one run of a backtracking pattern can cost, whatever the message's length.
function patternMatches(pattern: RegExp, text: string): TextSpan[] {
  const found: TextSpan[] = [];
  let covered = 0;
  for (let start = 0; ; start += PATTERN_WINDOW - PATTERN_OVERLAP) {
    const window = text.slice(start, start + PATTERN_WINDOW);
    for (const match of window.matchAll(pattern)) {
      if (match[0].length === 0) continue;
      const span = { start: start + match.index, end: start + match.index + match[0].length };
      // The overlap is scanned twice: a match already found there is not counted again.
      if (span.start < covered) continue;
      found.push(span);
      covered = span.end;
    }
    if (start + PATTERN_WINDOW >= text.length) break;
  }
  return found;
}

/** Every PII match in the excerpt is masked, so the alert log keeps no e-mail address, phone or card number. */
export function excerptOf(text: string, match: TextSpan, maskMatch: boolean, matchLabel = '[pii]'): string {
  const matchEnd = Math.min(match.end, match.start + EXCERPT_MATCH);
  const from = Math.max(0, match.start - EXCERPT_CONTEXT);
  const to = Math.min(text.length, matchEnd + EXCERPT_CONTEXT);
  // PII is looked for a little beyond the excerpt, so a number cut by its edge is still found and masked.
  const regionFrom = Math.max(0, from - 100);
  const region = text.slice(regionFrom, Math.min(text.length, to + 100));
  // The match first: a detector's mask of the same span names it better (later labels win).
  const masks: (TextSpan & { label: string })[] = maskMatch ? [{ ...match, label: matchLabel }] : [];
  for (const detector of PII_DETECTORS) {
    for (const span of detectPii(detector, region)) {
      masks.push({ start: span.start + regionFrom, end: span.end + regionFrom, label: `[${detector}]` });
    }
  }
  const visible = masks
    .filter((mask) => mask.end > from && mask.start < to)
    .map((mask) => ({ ...mask, start: Math.max(mask.start, from), end: Math.min(mask.end, to) }));
  const labels = new Map(visible.map((mask) => [`${mask.start}:${mask.end}`, mask.label]));
  let excerpt = replaceSpans(text.slice(0, to), visible, (span) => labels.get(`${span.start}:${span.end}`) ?? '[pii]');
  excerpt = excerpt.slice(from);
  return `${from > 0 ? '…' : ''}${excerpt.replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
}

/** Overlapping spans are merged into the first. */
function replaceSpans(text: string, spans: TextSpan[], replacement: (span: TextSpan) => string): string {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  let result = '';
  let at = 0;
  for (const span of sorted) {
    if (span.start < at) continue;
    result += text.slice(at, span.start) + replacement(span);
    at = span.end;
  }
  return result + text.slice(at);
}
