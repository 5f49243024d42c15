import { type CursorKey, type PageParams } from '@fed/contracts';
import { ownedBy } from '@fed/persistence';
import { type DataSource } from 'typeorm';
import { type ConversationOwner } from '../conversation-owner';
import { type ConversationMode } from '../conversations/conversations.dto';
import { likePattern } from '../conversations/conversations.repository';
import { type FoundMessage } from './search.dto';
import { SEARCH_CONFIGS } from './search-language';
import { MARK_END, MARK_START, type SnippetWindow } from './search-snippet';

const CONVERSATIONS: Record<ConversationMode, string> = {
  active: '"conversations"."conversations"',
  archive: '"conversations"."archived_conversations"',
};

/** The trigger stems this much of a message; the snippet looks for its first match there too. */
const STEMMED_CHARACTERS = 100_000;
/** The window ts_headline marks (its cost grows with length) and how much of it precedes the match. */
const WINDOW_CHARACTERS = 240;
const WINDOW_LEAD = 60;
const HEADLINE_OPTIONS = `'HighlightAll=true, StartSel=' || chr(${MARK_START.codePointAt(0)}) || ', StopSel=' || chr(${MARK_END.codePointAt(0)})`;
const MARKS = `chr(${MARK_START.codePointAt(0)}) || chr(${MARK_END.codePointAt(0)})`;

/** Probe length: each trigram is one more posting list read. */
const PROBE_CHARACTERS = 5;
/** Newest rows walked first: dense matches fill the page there, sparing the GIN indexes (which grow with the owner). */
export const WALK_ROWS = 2_000;
/** A query without a trigram is substring-matched in this many newest rows only; its words also in older rows. */
export const WINDOW_ROWS = 20_000;

/** The middle PROBE_CHARACTERS of the longest word (three unpadded trigrams): every text holding the query holds it. */
export function substringProbe(q: string): string {
  const words = q.match(/[\p{L}\p{N}]+/gu) ?? [q];
  const longest = words.map((word) => Array.from(word)).reduce((a, b) => (b.length > a.length ? b : a));
  const from = Math.max(0, Math.floor((longest.length - PROBE_CHARACTERS) / 2));
  return longest.slice(from, from + PROBE_CHARACTERS).join('');
}

/** Whether the trigram index can narrow a search for `probe`: pg_trgm takes trigrams of letters and digits only. */
export function narrowsByTrigram(probe: string): boolean {
  return /[\p{L}\p{N}]{3}/u.test(probe);
}

type FoundRow = Omit<FoundMessage, 'window'> & SnippetWindow;

/** Hands out `$n` in the order the SQL is written. */
class Statement {
  readonly values: unknown[] = [];

  bind(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

type Fragment = (statement: Statement) => string;

const MESSAGE_KEYS = `m."id", m."conversation_id", m."sender", m."created_at", m."seq", m."search_config"`;
const NEWEST_FIRST = `m."created_at" DESC, m."seq" DESC`;

/** A message's place in the order: `createdAt` to the microsecond (text) and `seq`, as a cursor holds them. */
interface MessageKey {
  createdAtKey: CursorKey;
  seq: CursorKey;
}

const keyed =
  (alias: 'm' | 'w', operator: '<' | '>=', key: MessageKey): Fragment =>
  (statement) =>
    `(${alias}."created_at", ${alias}."seq") ${operator} (${statement.bind(key.createdAtKey)}::timestamptz, ${statement.bind(key.seq)}::bigint)`;

const ownersArchive = (s: Statement, owner: ConversationOwner): string =>
  `${CONVERSATIONS.archive} AS a
    WHERE ${ownedBy(owner, s.values, 'a')}`;

/** The only place search queries: the owner's messages of one mode's conversations that match. */
export class SearchRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One page (`limit + 1`), newest first: the newest WALK_ROWS rows are walked first, and only sparse matches go to the
   * GIN indexes. A small archive is read through its conversations' index.
   */
  async find(owner: ConversationOwner, mode: ConversationMode, q: string, page: PageParams): Promise<FoundMessage[]> {
    const words = await this.anyLanguageQuery(q);
    const probe = substringProbe(q);
    const byTrigram = narrowsByTrigram(probe);
    const after = page.after ? keyed('m', '<', { createdAtKey: page.after[0], seq: page.after[1] }) : null;
    // Archived ids are read once as an array: as `IN (SELECT ...)` the planner drove the walk from the conversations.
    // The walk still reads all newest rows; bounding it on archived rows alone reads many more.
    const archivedOnly = (s: Statement): string | null =>
      mode === 'archive' ? `m."conversation_id" = ANY (ARRAY(SELECT a."id" FROM ${ownersArchive(s, owner)}))` : null;
    // `perRow`: the owner is checked on each row, else the planner ANDs the user_id-led GIN indexes into every
    // conversation's scan.
    const owned =
      (perRow = false): Fragment =>
      (s) =>
        `m."user_id" ${perRow ? 'IS NOT DISTINCT FROM' : '='} ${s.bind(owner.userId)} AND NOT m."processing"${after ? ` AND ${after(s)}` : ''}`;
    // The trigram index is asked for the probe; the whole query is then looked for in the candidates.
    const literal: Fragment = (s) =>
      `m."text" ILIKE ${s.bind(likePattern(probe))} ESCAPE '\\'` +
      (probe !== q ? ` AND strpos(lower(m."text"), lower(${s.bind(q)})) > 0` : '');
    const vector: Fragment | null = words === null ? null : (s) => `m."search_vector" @@ ${s.bind(words)}::tsquery`;
    const matches: Fragment = (s) => (vector ? `(${vector(s)} OR ${literal(s)})` : literal(s));
    // The walk's check of a row: in the archive, CASE makes the conversation's test come first.
    const walkedMatch: Fragment = (s) => {
      const archived = archivedOnly(s);
      return archived ? `CASE WHEN ${archived} THEN ${matches(s)} ELSE false END` : matches(s);
    };
    const gathered: Fragment = (s) => {
      const archived = archivedOnly(s);
      return archived ? `${owned()(s)} AND ${archived}` : owned()(s);
    };
    // Bounded by LIMIT and checked on what is read: a key bound is planned as a sorted read of all rows.
    const walk = (s: Statement, rows: number, bound = '') =>
      `SELECT w."id", w."conversation_id", w."sender", w."created_at", w."seq", w."search_config"
         FROM (SELECT ${MESSAGE_KEYS}, ${walkedMatch(s)} AS "matched"
                 FROM "conversations"."messages" AS m
                WHERE ${owned()(s)}
                ORDER BY ${NEWEST_FIRST}
                LIMIT ${rows}) AS w
        WHERE w."matched"${bound}`;
    const pageOf = (candidates: Fragment, gathered: boolean) =>
      this.page(owner, mode, q, page.limit + 1, candidates, gathered);

    if (!byTrigram) {
      const floor = await this.windowFloor(owner);
      const windowed = await pageOf(
        (s) => walk(s, WINDOW_ROWS, floor ? ` AND ${keyed('w', '>=', floor)(s)}` : ''),
        false,
      );
      if (windowed.length > page.limit || vector === null || floor === null) return windowed;
      const older = await pageOf(
        (s) =>
          `SELECT ${MESSAGE_KEYS} FROM "conversations"."messages" AS m
            WHERE ${gathered(s)} AND ${keyed('m', '<', floor)(s)} AND ${vector(s)}`,
        true,
      );
      return [...windowed, ...older].slice(0, page.limit + 1);
    }
    if (mode === 'archive' && (await this.archiveFitsWalk(owner))) {
      // A small archive: each archived conversation's rows give every match, without walking active rows.
      return pageOf(
        (s) =>
          `SELECT ${MESSAGE_KEYS}
             FROM (SELECT a."id" FROM ${ownersArchive(s, owner)}) AS a
             CROSS JOIN LATERAL (
               SELECT ${MESSAGE_KEYS} FROM "conversations"."messages" AS m
                WHERE m."conversation_id" = a."id" AND ${owned(true)(s)} AND ${matches(s)}
             ) AS m`,
        true,
      );
    }
    const walked = await pageOf((s) => walk(s, WALK_ROWS), false);
    if (walked.length > page.limit) return walked;
    // Sparse matches: every one of the owner's, through the two GIN indexes (user_id first in both).
    return pageOf(
      (s) => `SELECT ${MESSAGE_KEYS} FROM "conversations"."messages" AS m WHERE ${gathered(s)} AND ${matches(s)}`,
      true,
    );
  }

  /** `gathered` candidates are materialized first: joined directly, the planner would loop per conversation. */
  private async page(
    owner: ConversationOwner,
    mode: ConversationMode,
    q: string,
    limit: number,
    candidates: Fragment,
    gathered: boolean,
  ): Promise<FoundMessage[]> {
    const statement = new Statement();
    const found = candidates(statement);
    const ofOwner = `c."id" = f."conversation_id" AND ${ownedBy(owner, statement.values, 'c')}`;
    const query = statement.bind(q);
    // Streamed candidates look their conversation up one by one (by its key), which keeps their order.
    const conversation = gathered
      ? `JOIN ${CONVERSATIONS[mode]} AS c ON ${ofOwner}`
      : `CROSS JOIN LATERAL (SELECT c."title" FROM ${CONVERSATIONS[mode]} AS c WHERE ${ofOwner} LIMIT 1) AS c`;
    const rows: FoundRow[] = await this.dataSource.query(
      `WITH "found" AS ${gathered ? 'MATERIALIZED' : 'NOT MATERIALIZED'} (${found})
       SELECT p."id", p."conversationId", p."conversationTitle", p."sender", p."createdAt", p."createdAtKey", p."seq",
              ts_headline(p."config", translate(substr(t."text", w."start", ${WINDOW_CHARACTERS}), ${MARKS}, ''),
                          websearch_to_tsquery(p."config", ${query}), ${HEADLINE_OPTIONS}) AS "marked",
              w."start" > 1 AS "cutBefore",
              char_length(substr(t."text", w."start", ${WINDOW_CHARACTERS + 1})) > ${WINDOW_CHARACTERS} AS "cutAfter"
         FROM (
           SELECT f."id", f."conversation_id" AS "conversationId", c."title" AS "conversationTitle", f."sender",
                  f."created_at" AS "createdAt",
                  to_char(f."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "createdAtKey",
                  f."seq", f."search_config"::regconfig AS "config"
             FROM "found" AS f
             ${conversation}
            ORDER BY f."created_at" DESC, f."seq" DESC
            LIMIT ${statement.bind(limit)}
         ) AS p
         -- The text is read for the page's rows only.
         JOIN "conversations"."messages" AS t ON t."id" = p."id"
         -- The window starts a little before the first literal occurrence of the query or of one of its
         -- stems (words of three letters or more), else at the start.
         CROSS JOIN LATERAL (
           SELECT greatest(1, coalesce(min(o."at"), 1) - ${WINDOW_LEAD}) AS "start"
             FROM (SELECT lower(left(t."text", ${STEMMED_CHARACTERS})) AS "lowered" OFFSET 0) AS l
             CROSS JOIN LATERAL (
               SELECT strpos(l."lowered", lower(${query})) AS "at"
               UNION ALL
               SELECT strpos(l."lowered", "lexeme")
                 FROM unnest(tsvector_to_array(to_tsvector(p."config", ${query}))) AS "lexeme"
                WHERE char_length("lexeme") >= 3
             ) AS o
            WHERE o."at" > 0
         ) AS w
        ORDER BY p."createdAt" DESC, p."seq" DESC`,
      statement.values,
    );
    return rows.map(({ marked, cutBefore, cutAfter, ...message }) => ({
      ...message,
      window: { marked, cutBefore, cutAfter },
    }));
  }

  /** Whether the archive holds WALK_ROWS messages or fewer; counting stops one past, so a large archive is cheap. */
  private async archiveFitsWalk(owner: ConversationOwner): Promise<boolean> {
    const statement = new Statement();
    const [row] = (await this.dataSource.query(
      `SELECT count(*)::int AS "rows"
         FROM (SELECT 1
                 FROM (SELECT a."id" FROM ${ownersArchive(statement, owner)}) AS a
                 CROSS JOIN LATERAL (SELECT 1 FROM "conversations"."messages" AS m WHERE m."conversation_id" = a."id") AS m
                LIMIT ${WALK_ROWS + 1}) AS r`,
      statement.values,
    )) as { rows: number }[];
    return (row?.rows ?? 0) <= WALK_ROWS;
  }

  /** The key of the owner's WINDOW_ROWS-th newest searchable message; null when it has fewer. */
  private async windowFloor(owner: ConversationOwner): Promise<MessageKey | null> {
    const [row] = (await this.dataSource.query(
      `SELECT to_char(f."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "createdAtKey", f."seq"
         FROM (SELECT m."created_at", m."seq"
                 FROM "conversations"."messages" AS m
                WHERE m."user_id" = $1 AND NOT m."processing"
                ORDER BY ${NEWEST_FIRST}
               OFFSET ${WINDOW_ROWS - 1} LIMIT 1) AS f`,
      [owner.userId],
    )) as MessageKey[];
    return row ?? null;
  }

  /**
   * The query in every message configuration, OR-ed, each form once: a constant lets the planner weigh the GIN index
   * by real lexemes (repeated copies made it refuse the index). Forms an empty text matches are dropped (only
   * exclusions left after stop words match everything). Null when no form has a lexeme.
   */
  private async anyLanguageQuery(q: string): Promise<string | null> {
    const [row] = (await this.dataSource.query(
      `SELECT string_agg(DISTINCT '(' || "query"::text || ')', ' | ') AS "query"
         FROM unnest($1::regconfig[]) AS "config", websearch_to_tsquery("config", $2) AS "query"
        WHERE numnode("query") > 0 AND NOT (''::tsvector @@ "query")`,
      [SEARCH_CONFIGS, q],
    )) as { query: string | null }[];
    return row?.query ?? null;
  }
}
