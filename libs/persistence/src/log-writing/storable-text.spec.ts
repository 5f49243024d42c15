import { storableText } from './storable-text';

describe('storableText', () => {
  it('keeps ordinary text as it is, and paired surrogates (emoji)', () => {
    expect(storableText('hello 😀', 100)).toBe('hello 😀');
  });

  it('removes NUL and replaces lone surrogates, which PostgreSQL text refuses', () => {
    expect(storableText('a\u0000b\ud800c\udc00', 100)).toBe('ab\ufffdc\ufffd');
  });

  it('cuts at the limit, and a pair cut in half becomes a replacement character', () => {
    expect(storableText('abcdef', 3)).toBe('abc');
    expect(storableText('a😀', 2)).toBe('a\ufffd');
  });
});
