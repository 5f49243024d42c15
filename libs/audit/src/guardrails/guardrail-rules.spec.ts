import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findTerms, foldText } from './blocked-terms';
import { GuardrailEngine } from './guardrail-engine';
import {
  DEFAULT_GUARDRAIL_RULES,
  GuardrailRulesError,
  loadGuardrailRules,
  parseGuardrailRules,
} from './guardrail-rules';
import { unsafePatternReason } from './safe-pattern';

const rule = (fields: Record<string, unknown>) => ({ name: 'r', severity: 'medium', action: 'alert', ...fields });
const parse = (...rules: Record<string, unknown>[]) => parseGuardrailRules({ rules }, 'rules.json');

describe('guardrail rules file', () => {
  it('reads the three kinds, with stages (default input) and action (default alert)', () => {
    const rules = parse(
      rule({ name: 'codename', kind: 'blocked_terms', terms: ['Project Falcon'], action: 'block' }),
      rule({ name: 'aws-key', kind: 'pattern', pattern: 'AKIA[0-9A-Z]{16}', stages: ['input', 'output'] }),
      { name: 'cards', kind: 'pii', detectors: ['payment_card'], severity: 'high' },
    );
    expect(rules.map((r) => [r.name, r.kind, r.action, r.stages])).toEqual([
      ['codename', 'blocked_terms', 'block', ['input']],
      ['aws-key', 'pattern', 'alert', ['input', 'output']],
      ['cards', 'pii', 'alert', ['input']],
    ]);
  });

  it.each([
    [{ kind: 'regex', pattern: 'x' }, /rule 1 \("r"\) "kind" "regex" is not one of pattern, blocked_terms, pii/],
    [{ kind: 'pii', detectors: ['ssn'] }, /detector "ssn" is not one of email, phone, payment_card/],
    [{ kind: 'pii', detectors: ['email'], severity: 'urgent' }, /"severity" "urgent" is not one of low, medium, high/],
    [{ kind: 'pii', detectors: ['email'], stages: ['model'] }, /stage "model" is not one of input, output, gateway/],
    [{ kind: 'pii', detectors: ['email'], action: 'redact', stages: ['gateway'] }, /cannot redact at stage "gateway"/],
    [{ kind: 'blocked_terms', terms: [] }, /needs "terms"/],
    [{ kind: 'blocked_terms', terms: ['  '] }, /term 1 must be text/],
    [{ kind: 'pattern', pattern: '(a+)+$' }, /"pattern" is refused: a quantified group contains a quantifier/],
    [{ kind: 'pattern', pattern: '[' }, /not a valid regular expression/],
    [{ kind: 'pii', detectors: ['email'], colour: 'red' }, /unknown fields: colour/],
    [{ kind: 'pii', detectors: ['email'], action: 'block', stages: ['output'] }, /cannot block at stage "output"/],
    [{ kind: 'pii', detectors: ['email'], name: 'has space' }, /needs a "name"/],
  ])('refuses a bad rule and says which and why: %j', (fields, message) => {
    expect(() => parse(rule(fields))).toThrow(message);
    expect(() => parse(rule(fields))).toThrow(GuardrailRulesError);
  });

  it('refuses two rules with one name', () => {
    const cards = rule({ kind: 'pii', detectors: ['payment_card'] });
    expect(() => parse(cards, cards)).toThrow(/rule 2 \("r"\) has the name of an earlier rule/);
  });

  it('names the file when it is not JSON or cannot be read, and uses the built-in PII rules without one', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'guardrails-')), 'rules.json');
    writeFileSync(file, '{"rules": [');
    expect(() => loadGuardrailRules(file)).toThrow(`GUARDRAIL_RULES_FILE ${file} is not JSON`);
    expect(() => loadGuardrailRules(`${file}.missing`)).toThrow(/cannot be read/);
    writeFileSync(file, JSON.stringify({ rules: [] }));
    expect(loadGuardrailRules(file)).toEqual([]);
    expect(loadGuardrailRules(undefined)).toBe(DEFAULT_GUARDRAIL_RULES);
    expect(DEFAULT_GUARDRAIL_RULES.every((r) => r.kind === 'pii' && r.action === 'alert')).toBe(true);
  });
});

describe('patterns that could backtrack catastrophically are refused', () => {
  it.each([['(a+)+b'], ['(\\w*x?)*'], ['((ab)*c)+'], ['(a|aa)*b'], ['(x+){2,}'], ['(.*a){10}']])(
    'refuses %s',
    (pattern) => {
      expect(unsafePatternReason(pattern)).toMatch(/quantif|alternation/);
    },
  );

  it.each([['(\\(?\\(?)*x'], ['(\\*?a)+']])('sees a quantifier after an escaped character: refuses %s', (pattern) => {
    expect(unsafePatternReason(pattern)).toMatch(/quantified group contains a quantifier/);
  });

  it.each([['.*a.*b'], ['\\w+\\w+!'], ['a{2,}b+'], ['\\(\\d+\\)+']])(
    'refuses more than one unbounded quantifier (polynomial backtracking): %s',
    (pattern) => {
      expect(unsafePatternReason(pattern)).toMatch(/at most one unbounded quantifier/);
    },
  );

  it.each([['(\\w)\\1'], ['(?=a)b'], ['(?<!a)b']])('refuses backreferences and lookarounds: %s', (pattern) => {
    expect(unsafePatternReason(pattern)).not.toBeNull();
  });

  it.each([
    ['AKIA[0-9A-Z]{16}'],
    ['(?:secret|confidential) project'],
    ['[(+*]+x'],
    ['(abc)+'],
    ['\\(\\d{1,10}\\)+'],
    ['a+?b'],
    ['sk-[A-Za-z0-9]{20,}'],
    ['x\\??y{2,5}?'],
  ])('accepts %s', (pattern) => {
    expect(unsafePatternReason(pattern)).toBeNull();
  });
});

describe('blocked terms', () => {
  const find = (text: string, ...terms: string[]) => {
    const [blocked] = parse(rule({ kind: 'blocked_terms', terms }));
    if (blocked?.kind !== 'blocked_terms') throw new Error('not a blocked_terms rule');
    return findTerms(foldText(text), blocked.terms).map(({ start, end }) => text.slice(start, end));
  };

  it('match whatever the case or the width (NFKC folding), as written in the text', () => {
    expect(find('About PROJECT falcon and Ｐｒｏｊｅｃｔ　Ｆａｌｃｏｎ.', 'Project Falcon')).toEqual([
      'PROJECT falcon',
      'Ｐｒｏｊｅｃｔ　Ｆａｌｃｏｎ',
    ]);
    expect(find('ｶﾞｲﾄﾞﾗｲﾝ と ガイドライン', 'ガイドライン')).toEqual(['ｶﾞｲﾄﾞﾗｲﾝ', 'ガイドライン']);
  });

  it('match whole words in Latin script, anywhere in Japanese', () => {
    expect(find('a classic class', 'class')).toEqual(['class']);
    expect(find('これは機密情報です', '機密')).toEqual(['機密']);
  });
});

describe('the engine', () => {
  const engine = new GuardrailEngine(
    parse(
      rule({ name: 'cards', kind: 'pii', detectors: ['payment_card'], severity: 'high', stages: ['input', 'output'] }),
      rule({ name: 'codename', kind: 'blocked_terms', terms: ['falcon'], action: 'block' }),
      rule({ name: 'mask-mail', kind: 'pii', detectors: ['email'], action: 'redact' }),
      rule({ name: 'ticket', kind: 'pattern', pattern: 'TICKET-\\d{4}' }),
    ),
  );

  it('records one finding per rule with its count; a block rule blocks', () => {
    const verdict = engine.check('input', 'falcon card 4111111111111111 and 5555555555554444, TICKET-1234');
    expect(verdict.findings.map((f) => [f.rule.name, f.matchCount])).toEqual([
      ['cards', 2],
      ['codename', 1],
      ['ticket', 1],
    ]);
    expect(verdict.blockedBy?.name).toBe('codename');
    expect(engine.check('output', 'falcon').findings).toEqual([]);
    expect(engine.appliesTo('output')).toBe(true);
  });

  it('masks PII in excerpts, the match and any other PII near it, and bounds them', () => {
    const text = `${'x'.repeat(500)} my card is 4111 1111 1111 1111, mail me at jane@example.com ${'y'.repeat(500)}`;
    const [card] = engine.check('input', text).findings;
    // 40 characters on each side of the match, counted in the text before masking.
    expect(card?.excerpt).toBe(`…${'x'.repeat(28)} my card is [payment_card], mail me at [email] ${'y'.repeat(10)}…`);
    expect(card?.excerpt).not.toMatch(/4111|jane/);
    const [found] = engine.check('input', `TICKET-0001 ${'z'.repeat(10_000)}`).findings;
    expect(found?.excerpt.length).toBeLessThanOrEqual(200);
    // A pattern's match may be the secret it looks for: masked.
    expect(found?.excerpt).toMatch(/^\[match\] z+…$/);
  });

  it('finds pattern matches beyond the first window and across window edges, once each', () => {
    const text = `${'a'.repeat(4090)}TICKET-1111${'b'.repeat(9000)}TICKET-2222`;
    expect(engine.check('input', text).findings[0]?.matchCount).toBe(2);
  });

  it('redacts the matches of redact rules only', () => {
    expect(engine.redact('input', 'mail jane@example.com, card 4111111111111111')).toBe(
      'mail [REDACTED], card 4111111111111111',
    );
  });
});
