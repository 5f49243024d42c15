import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

/** `<!-- name:start -->` ... `<!-- name:end -->`: the part of docs/reliability.md a script owns. */
function markers(name: string): { start: string; end: string } {
  return { start: `<!-- ${name}:start -->`, end: `<!-- ${name}:end -->` };
}

/**
 * Replaces what is between the markers `name` in `file` with `content`, leaving the rest of the file
 * as it is; when the markers are missing, appends them (under `heading`) with the content.
 */
export function writeBetweenMarkers(file: string, name: string, content: string, heading: string): void {
  const { start, end } = markers(name);
  const block = `${start}\n${content.trim()}\n${end}`;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Reliability\n';
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  const next =
    from !== -1 && to > from
      ? text.slice(0, from) + block + text.slice(to + end.length)
      : `${text.trimEnd()}\n\n${heading}\n\n${block}\n`;
  writeFileSync(file, next);
}

/** "2026-11-27, 2 cores (AMD EPYC ...), 23 GiB, Node v24.21.0". */
export function machineLine(): string {
  const cpus = os.cpus();
  const date = new Date().toISOString().slice(0, 10);
  return `${date}, ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** A Markdown table; `|` in cells escaped. */
export function markdownTable(columns: string[], rows: (string | number)[][]): string {
  const cell = (value: string | number) => String(value).replace(/\|/g, '\\|');
  return [
    `| ${columns.join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n');
}
