// Texts that look like a chat with a model: short questions, and answers in Markdown with paragraphs,
// lists, headings, code blocks and tables, from deterministic numbers so every run writes the same.

/** Code an answer shows, by the language its fence names. */
const CODE: Record<string, string[]> = {
  ts: [
    'export async function retry<T>(work: () => Promise<T>, attempts = 3): Promise<T> {',
    '  let last: unknown;',
    '  for (let attempt = 1; attempt <= attempts; attempt++) {',
    '    try {',
    '      return await work();',
    '    } catch (error) {',
    '      last = error;',
    '      await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 100));',
    '    }',
    '  }',
    '  throw last;',
    '}',
  ],
  python: [
    'import csv',
    'from collections import Counter',
    '',
    'def top_customers(path: str, n: int = 5) -> list[tuple[str, int]]:',
    '    counts = Counter()',
    '    with open(path, newline="") as handle:',
    '        for row in csv.DictReader(handle):',
    '            counts[row["customer"]] += int(row["amount"])',
    '    return counts.most_common(n)',
  ],
  sql: [
    "SELECT region, date_trunc('month', ordered_at) AS month, sum(total) AS revenue",
    '  FROM orders',
    " WHERE ordered_at >= now() - interval '1 year'",
    ' GROUP BY region, month',
    ' ORDER BY month, revenue DESC;',
  ],
  bash: [
    'set -euo pipefail',
    'kubectl rollout status deployment/api --timeout=120s',
    'kubectl rollout undo deployment/api',
    'curl -fsS https://api.example.com/healthz',
  ],
};
const LANGUAGES = Object.keys(CODE);
const HEADINGS = ['Summary', 'What changed', 'Next steps', 'Risks', 'How it works', 'Options', 'Details'];
const COLUMNS = ['Item', 'Owner', 'Status', 'Due', 'Cost', 'Notes'];
const CELLS = ['done', 'open', 'blocked', 'Alice', 'Bob', 'Q3', 'Q4', '1,200 €', '€ 80', 'n/a', 'in review', 'yes'];

type Numbers = () => number;

const pick = <T>(next: Numbers, items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
const between = (next: Numbers, least: number, most: number) => least + Math.floor(next() * (most - least + 1));

/** Some sentences marked up as a model would: an odd **bold** phrase or `identifier`. */
function prose(next: Numbers, sentences: readonly string[], count: number): string {
  return Array.from({ length: count }, () => {
    const sentence = pick(next, sentences);
    const roll = next();
    if (roll < 0.15) return sentence.replace(/^(\S+ \S+)/, '**$1**');
    if (roll < 0.25) return sentence.replace(/ (\w{6,}) /, ' `$1` ');
    return sentence;
  }).join(' ');
}

function codeBlock(next: Numbers): string {
  const language = pick(next, LANGUAGES);
  const lines = CODE[language] as string[];
  const start = between(next, 0, Math.max(0, lines.length - 4));
  return `\`\`\`${language}\n${lines.slice(start, start + between(next, 4, lines.length)).join('\n')}\n\`\`\``;
}

function table(next: Numbers): string {
  const columns = COLUMNS.slice(0, between(next, 3, 5));
  const rows = Array.from(
    { length: between(next, 3, 8) },
    (_, i) => `| ${[`Row ${i + 1}`, ...columns.slice(1).map(() => pick(next, CELLS))].join(' | ')} |`,
  );
  return [`| ${columns.join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`, ...rows].join('\n');
}

function list(next: Numbers, sentences: readonly string[]): string {
  const ordered = next() < 0.4;
  return Array.from(
    { length: between(next, 3, 6) },
    (_, i) => `${ordered ? `${i + 1}.` : '-'} ${prose(next, sentences, 1)}`,
  ).join('\n');
}

/** A user's question: 1-3 sentences. */
export function questionText(next: Numbers, sentences: readonly string[]): string {
  return prose(next, sentences, between(next, 1, 3));
}

/** An answer of 2-`most` blocks: paragraphs, and now and then a heading, a list, a code block or a table. */
export function answerText(next: Numbers, sentences: readonly string[], most = 6): string {
  const blocks = [prose(next, sentences, between(next, 2, 4))];
  for (let i = between(next, 1, most - 1); i > 0; i--) {
    const roll = next();
    if (roll < 0.15) blocks.push(`### ${pick(next, HEADINGS)}`);
    if (roll < 0.35) blocks.push(list(next, sentences));
    else if (roll < 0.5) blocks.push(codeBlock(next));
    else if (roll < 0.6) blocks.push(table(next));
    else blocks.push(prose(next, sentences, between(next, 2, 5)));
  }
  return blocks.join('\n\n');
}

/** A text cut into the pieces a model streams: a word with the space or line end after it. */
export function streamPieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}
