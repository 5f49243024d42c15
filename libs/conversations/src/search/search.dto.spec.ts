import { ApiError } from '@fed/contracts';
import { RequestValidationPipe } from '@fed/server';
import { SearchMessagesQuery, searchList, searchPage } from './search.dto';
import { narrowsByTrigram, substringProbe } from './search.repository';

const pipe = new RequestValidationPipe();
const EXCLUSIONS_ALONE =
  'q must name a word or phrase to find, on each side of "or": exclusions alone match everything';
const validate = (query: Record<string, unknown>) =>
  pipe.transform(query, { type: 'query', metatype: SearchMessagesQuery }) as Promise<SearchMessagesQuery>;

async function refusal(query: Record<string, unknown>) {
  try {
    await validate(query);
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the query was accepted');
}

describe('the search query', () => {
  it('trims q and keeps white space inside it', async () => {
    expect((await validate({ q: '  quarterly\treport \n' })).q).toBe('quarterly\treport');
  });

  it.each([
    ['absent', {}, 'q is required'],
    ['empty', { q: '' }, 'q must not be empty'],
    ['white space only', { q: ' \t\n ' }, 'q must not be empty'],
    ['given twice', { q: ['a', 'b'] }, 'q must be given once, as text'],
    ['over 200 characters once trimmed', { q: ` ${'x'.repeat(201)} ` }, 'q must be at most 200 characters'],
    ['with NUL', { q: 'a\u0000b' }, 'q must not contain NUL, unpaired surrogate or control characters'],
    ['with a lone surrogate', { q: 'a\ud800b' }, 'q must not contain NUL, unpaired surrogate or control characters'],
    ['with a control character', { q: 'a\u0007b' }, 'q must not contain NUL, unpaired surrogate or control characters'],
    ['only excluding words', { q: '-zzzz' }, EXCLUSIONS_ALONE],
    ['only excluding a phrase', { q: ' -"weekly report" ' }, EXCLUSIONS_ALONE],
    ['excluding alone on one side of or', { q: 'report or -draft' }, EXCLUSIONS_ALONE],
  ])('refuses q %s (400 invalid_parameter naming q)', async (_, query, message) => {
    expect(await refusal(query)).toEqual({ code: 'invalid_parameter', message });
  });

  it('accepts exclusions beside a word or phrase to find', async () => {
    expect((await validate({ q: 'report -draft' })).q).toBe('report -draft');
    expect((await validate({ q: '"weekly report" or summary -draft' })).q).toBe('"weekly report" or summary -draft');
  });

  it('accepts 200 characters counted as code points, emoji included', async () => {
    expect((await validate({ q: '😀'.repeat(200) })).q).toHaveLength(400);
  });

  it('refuses order: results are newest first', async () => {
    expect(await refusal({ q: 'a', order: 'asc' })).toMatchObject({ code: 'invalid_parameter' });
  });

  it('gives each mode and query a list of its own, so their cursors do not mix', () => {
    expect(searchList('active', 'report')).not.toBe(searchList('archive', 'report'));
    expect(searchList('active', 'report')).not.toBe(searchList('active', 'reports'));
    expect(searchPage(searchList('active', 'report'), { limit: 10 })).toEqual({ limit: 10, order: 'desc' });
  });
});

describe('the piece of a query the trigram index is asked for', () => {
  it('is the middle five characters of the longest word, or the longest word when shorter', () => {
    expect(substringProbe('"quarterly report"')).toBe('arter');
    expect(substringProbe('Kilimanjaro')).toBe('imanj');
    expect(substringProbe('report')).toBe('repor');
    expect(substringProbe('a Q3 ok')).toBe('Q3');
    expect(substringProbe('雨が降りますか')).toBe('が降ります');
    expect(substringProbe('?!?')).toBe('?!?');
  });

  it('narrows by trigram only with three letters or digits in a row (pg_trgm ignores punctuation)', () => {
    for (const q of ['report', 'Q3x', '雨が降り', '"quarterly report"'])
      expect(narrowsByTrigram(substringProbe(q))).toBe(true);
    for (const q of ['Q3', 'ab', '会議', '?!?', 'a.b.c', '-']) expect(narrowsByTrigram(substringProbe(q))).toBe(false);
  });
});
