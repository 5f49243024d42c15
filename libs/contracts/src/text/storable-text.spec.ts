import { isPrintableLine, isStorableText } from './storable-text';

describe('text that can be stored faithfully', () => {
  it('accepts ordinary text, emoji (paired surrogates) and line breaks', () => {
    expect(isStorableText('héllo 世界 🙂\nsecond line')).toBe(true);
  });

  it('refuses NUL and unpaired surrogates', () => {
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('a\uD800b')).toBe(false);
    expect(isStorableText('a\uDC00')).toBe(false);
    expect(isStorableText('\uDFFF\uD83D')).toBe(false);
  });

  it('refuses control characters in a single-line label', () => {
    expect(isPrintableLine('Acme CRM')).toBe(true);
    expect(isPrintableLine('Acme\nCRM')).toBe(false);
    expect(isPrintableLine('Acme\u007f')).toBe(false);
  });
});
