/** A span of the scanned text: `start` inclusive, `end` exclusive (UTF-16 offsets). */
export interface TextSpan {
  start: number;
  end: number;
}

export const PII_DETECTORS = ['email', 'phone', 'payment_card'] as const;
export type PiiDetector = (typeof PII_DETECTORS)[number];

// Every quantifier is bounded and none can split the same characters, so each pattern is linear.
const EMAIL =
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9-])/g;
// International (+ and country code) or national with separators, 10-15 digits. Plain digit runs
// (ids) and dotted groups (IP addresses, versions) are not phone numbers here.
const PHONE =
  /(?<![\w+.-])(?:\+\d{1,3}[ -]?)?(?:\(\d{1,5}\)[ -]?)?\d{1,5}(?:[ -]\d{1,5}){1,4}(?![\w.]|-\d)|(?<![\w+])\+\d{9,15}(?!\w)/g;
const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d])/g;

export function detectPii(detector: PiiDetector, text: string): TextSpan[] {
  switch (detector) {
    case 'email':
      return spans(EMAIL, text);
    case 'phone':
      return spans(PHONE, text).filter(({ start, end }) => isPhoneNumber(text.slice(start, end)));
    case 'payment_card':
      return spans(CARD, text).filter(({ start, end }) => isPaymentCardNumber(text.slice(start, end)));
  }
}

function spans(pattern: RegExp, text: string): TextSpan[] {
  const found: TextSpan[] = [];
  for (const match of text.matchAll(pattern)) found.push({ start: match.index, end: match.index + match[0].length });
  return found;
}

function isPhoneNumber(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '');
  if (digits.length < 10 || digits.length > 15) return false;
  // International, area code in parentheses, national trunk prefix 0, or North American 3-3-4 groups;
  // other digit groups ("2024 2025 2026", amounts) are not phone numbers.
  return /^[+(0]/.test(candidate) || /^\d{3}[ -]\d{3}[ -]\d{4}$/.test(candidate);
}

/** A payment card number: 13-19 digits, an issuer's first digit (2-6), and a valid Luhn check digit. */
export function isPaymentCardNumber(candidate: string): boolean {
  const digits = candidate.replace(/[ -]/g, '');
  if (!/^[2-6]\d{12,18}$/.test(digits)) return false;
  // Every group separator of one kind: "4111 1111-1111 1111" is not how a card number is written.
  if (/ /.test(candidate) && /-/.test(candidate)) return false;
  return luhnValid(digits);
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}
