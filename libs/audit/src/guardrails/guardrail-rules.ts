import { readFileSync } from 'node:fs';
import { foldTerm } from './blocked-terms';
import { PII_DETECTORS, type PiiDetector } from './pii-detectors';
import { unsafePatternReason } from './safe-pattern';

export const RULE_KINDS = ['pattern', 'blocked_terms', 'pii'] as const;
export const SEVERITIES = ['low', 'medium', 'high'] as const;
export const ACTIONS = ['alert', 'redact', 'block'] as const;
/** `input`: the user's message before the model call; `output`: the final answer; `gateway`: model gateway requests. */
export const STAGES = ['input', 'output', 'gateway'] as const;

export type RuleKind = (typeof RULE_KINDS)[number];
export type Severity = (typeof SEVERITIES)[number];
export type GuardrailAction = (typeof ACTIONS)[number];
export type GuardrailStage = (typeof STAGES)[number];

interface RuleBase {
  name: string;
  severity: Severity;
  action: GuardrailAction;
  stages: readonly GuardrailStage[];
}

export type GuardrailRule =
  | (RuleBase & { kind: 'pattern'; pattern: RegExp })
  | (RuleBase & { kind: 'blocked_terms'; terms: readonly string[] })
  | (RuleBase & { kind: 'pii'; detectors: readonly PiiDetector[] });

export const MAX_RULES = 200;
export const MAX_TERMS = 1000;
const MAX_TERM_LENGTH = 200;
const RULE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** The rules when no file is configured: PII detectors that only record alerts. */
export const DEFAULT_GUARDRAIL_RULES: readonly GuardrailRule[] = [
  {
    name: 'pii-payment-card',
    kind: 'pii',
    detectors: ['payment_card'],
    severity: 'high',
    action: 'alert',
    stages: ['input', 'output'],
  },
  {
    name: 'pii-email',
    kind: 'pii',
    detectors: ['email'],
    severity: 'low',
    action: 'alert',
    stages: ['input', 'output'],
  },
  {
    name: 'pii-phone',
    kind: 'pii',
    detectors: ['phone'],
    severity: 'low',
    action: 'alert',
    stages: ['input', 'output'],
  },
];

export class GuardrailRulesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GuardrailRulesError';
  }
}

export function loadGuardrailRules(file: string | undefined): readonly GuardrailRule[] {
  if (!file) return DEFAULT_GUARDRAIL_RULES;
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (error) {
    throw new GuardrailRulesError(`GUARDRAIL_RULES_FILE ${file} cannot be read: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(raw);
  } catch (error) {
    throw new GuardrailRulesError(`GUARDRAIL_RULES_FILE ${file} is not JSON: ${(error as Error).message}`);
  }
  return parseGuardrailRules(document, `GUARDRAIL_RULES_FILE ${file}`);
}

/** `{"rules": [...]}` checked whole: unknown fields, kinds, values and duplicate names are refused. */
export function parseGuardrailRules(document: unknown, source = 'guardrail rules'): readonly GuardrailRule[] {
  const fail = (where: string, message: string): never => {
    throw new GuardrailRulesError(`${source}: ${where} ${message}`);
  };
  if (!isObject(document)) return fail('the document', 'must be an object {"rules": [...]}');
  onlyKeys(document, ['rules'], 'the document', fail);
  const rules = document.rules;
  if (!Array.isArray(rules)) return fail('"rules"', 'must be an array');
  if (rules.length > MAX_RULES) fail('"rules"', `must hold at most ${MAX_RULES} rules`);
  const names = new Set<string>();
  return rules.map((rule: unknown, index) => {
    const where = `rule ${index + 1}${isObject(rule) && typeof rule.name === 'string' ? ` ("${rule.name}")` : ''}`;
    if (!isObject(rule)) return fail(where, 'must be an object');
    const parsed = parseRule(rule, where, fail);
    if (names.has(parsed.name)) fail(where, 'has the name of an earlier rule');
    names.add(parsed.name);
    return parsed;
  });
}

type Fail = (where: string, message: string) => never;

function parseRule(rule: Record<string, unknown>, where: string, fail: Fail): GuardrailRule {
  const common = ['name', 'kind', 'severity', 'action', 'stages'];
  if (typeof rule.name !== 'string' || !RULE_NAME.test(rule.name)) {
    fail(where, 'needs a "name" of 1-64 letters, digits, "_", ".", ":" or "-"');
  }
  const kind = oneOf(rule.kind, RULE_KINDS, `${where} "kind"`, fail);
  const base: RuleBase = {
    name: rule.name as string,
    severity: oneOf(rule.severity, SEVERITIES, `${where} "severity"`, fail),
    action: oneOf(rule.action ?? 'alert', ACTIONS, `${where} "action"`, fail),
    stages: stagesOf(rule.stages, where, fail),
  };
  // The answer is streamed while the model writes it: by the output check it has been shown.
  if (base.action !== 'alert' && base.stages.includes('output')) {
    fail(where, `cannot ${base.action} at stage "output" (the answer is streamed as it is written): use "alert"`);
  }
  // The gateway relays requests as their clients wrote them; it refuses them or lets them through.
  if (base.action === 'redact' && base.stages.includes('gateway')) {
    fail(where, 'cannot redact at stage "gateway": use "alert" or "block"');
  }
  switch (kind) {
    case 'pattern': {
      onlyKeys(rule, [...common, 'pattern'], where, fail);
      if (typeof rule.pattern !== 'string') return fail(where, 'needs a "pattern" (a regular expression)');
      const reason = unsafePatternReason(rule.pattern);
      if (reason) fail(`${where} "pattern"`, `is refused: ${reason}`);
      return { ...base, kind, pattern: new RegExp(rule.pattern as string, 'giu') };
    }
    case 'blocked_terms': {
      onlyKeys(rule, [...common, 'terms'], where, fail);
      const terms = rule.terms;
      if (!Array.isArray(terms) || terms.length === 0 || terms.length > MAX_TERMS) {
        return fail(where, `needs "terms": 1-${MAX_TERMS} strings`);
      }
      return {
        ...base,
        kind,
        terms: terms.map((term: unknown, i) => {
          const folded = typeof term === 'string' ? foldTerm(term) : '';
          if (folded.length === 0 || folded.length > MAX_TERM_LENGTH) {
            fail(`${where} term ${i + 1}`, `must be text of 1-${MAX_TERM_LENGTH} characters`);
          }
          return folded;
        }),
      };
    }
    case 'pii': {
      onlyKeys(rule, [...common, 'detectors'], where, fail);
      const detectors = rule.detectors;
      if (!Array.isArray(detectors) || detectors.length === 0) {
        return fail(where, `needs "detectors": some of ${PII_DETECTORS.join(', ')}`);
      }
      return {
        ...base,
        kind,
        detectors: detectors.map((detector: unknown) => oneOf(detector, PII_DETECTORS, `${where} detector`, fail)),
      };
    }
  }
}

function stagesOf(value: unknown, where: string, fail: Fail): GuardrailStage[] {
  if (value === undefined) return ['input'];
  if (!Array.isArray(value) || value.length === 0)
    return fail(where, `"stages" must list some of ${STAGES.join(', ')}`);
  return [...new Set(value.map((stage: unknown) => oneOf(stage, STAGES, `${where} stage`, fail)))];
}

function oneOf<const T extends string>(value: unknown, choices: readonly T[], where: string, fail: Fail): T {
  const choice = choices.find((c) => c === value);
  return choice ?? fail(where, `${JSON.stringify(value)} is not one of ${choices.join(', ')}`);
}

function onlyKeys(object: Record<string, unknown>, keys: readonly string[], where: string, fail: Fail): void {
  const unknown = Object.keys(object).filter((key) => !keys.includes(key));
  if (unknown.length > 0) fail(where, `has unknown fields: ${unknown.join(', ')}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
