import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Row = Record<string, string | number>;

export function printTable(title: string, rows: Row[]): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0] as Row);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] as number)).join(' | ')} |`;
  process.stdout.write(`\n${title}\n`);
  process.stdout.write(`${line(columns)}\n`);
  process.stdout.write(`${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const row of rows) process.stdout.write(`${line(columns.map((c) => String(row[c] ?? '')))}\n`);
}

/** Writes `bench/results/<name>.json` (latest) and a timestamped copy, with the machine's description. */
export function writeResult(resultsDir: string, name: string, data: unknown): string {
  mkdirSync(resultsDir, { recursive: true });
  const record = {
    name,
    at: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    data,
  };
  const json = `${JSON.stringify(record, null, 2)}\n`;
  const latest = path.join(resultsDir, `${name}.json`);
  writeFileSync(latest, json);
  writeFileSync(path.join(resultsDir, `${name}-${record.at.replace(/[:.]/g, '-')}.json`), json);
  return latest;
}
