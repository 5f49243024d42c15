import { useTestDatabase } from '@fed/persistence/testing';
import { onlyExcludes } from './search-query';

// Queries whose terms all have a lexeme in `simple`, so that PostgreSQL's own verdict applies: a query
// that an empty text matches is one an alternative of which only excludes.
const EXCLUDING: string[] = [
  '-zzzz',
  '- foo',
  '-"a b"',
  '-!a',
  '-(a)',
  '-a:*',
  '-a or b',
  'a or -b',
  'a OR -b',
  '-a or -b',
  'a or)-b',
  '"a" or -"b"',
  'a or -"b c"',
  'a or -b or c',
  'a or\t-b',
  '-a-b',
];
const FINDING: string[] = [
  'report',
  'report -zzzz',
  'a -b',
  '-b a',
  '--a',
  '- -a',
  '-a or',
  'a or -',
  'a or or -b',
  'a or-b',
  'a or_b -c',
  'a -or',
  'a or -b c',
  '-a b or c',
  'a (-b)',
  'a !b',
  'a,-b',
  'a ,-b',
  '"-a"',
  '\\-a',
  'x- y',
  '"a b" -c',
  'a"-b"',
  'a or"-b"',
  'foo -',
  'or',
  '?!?',
  '-',
  '-""',
];

describe('a query that only excludes (websearch_to_tsquery syntax)', () => {
  it.each(EXCLUDING)('is refused: %s', (q) => {
    expect(onlyExcludes(q)).toBe(true);
  });

  it.each(FINDING)('is not: %s', (q) => {
    expect(onlyExcludes(q)).toBe(false);
  });

  describe('as PostgreSQL parses it', () => {
    const database = useTestDatabase();

    it('is exactly one whose tsquery matches an empty text', async () => {
      const queries = [...EXCLUDING, ...FINDING].filter((q) => !['?!?', '-', '-""'].includes(q));
      const rows: { q: string; everything: boolean }[] = await database.dataSource.query(
        `SELECT q, ''::tsvector @@ websearch_to_tsquery('simple', q) AS "everything" FROM unnest($1::text[]) AS q`,
        [queries],
      );
      expect(rows.filter((row) => row.everything).map((row) => row.q)).toEqual(queries.filter((q) => onlyExcludes(q)));
    });
  });
});
