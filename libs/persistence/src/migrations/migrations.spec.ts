import { readdirSync } from 'node:fs';
import { migrations } from '.';

// A drift guard until entities exist; then it also compares entities with migrations (see README).
const timestampOf = (name: string) => Number(/(\d{13})$/.exec(name)?.[1]);

function expectedClassName(fileName: string): string {
  const [, timestamp, words] = /^(\d{13})-([a-z0-9-]+)\.ts$/.exec(fileName) ?? [];
  const pascal = words.replace(/(^|-)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase());
  return `${pascal}${timestamp}`;
}

describe('the migration list', () => {
  it('lists migrations oldest first', () => {
    const timestamps = migrations.map((migration) => timestampOf(migration.name));
    expect(timestamps.every((timestamp, i) => i === 0 || timestamp > timestamps[i - 1])).toBe(true);
  });

  it('gives every migration a unique name', () => {
    const names = migrations.map((migration) => migration.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('names each class <Name><13-digit timestamp>, the name TypeORM records', () => {
    for (const migration of migrations) {
      expect(migration.name).toMatch(/^[A-Z][A-Za-z0-9]*\d{13}$/);
      expect((new migration() as { name?: string }).name).toBe(migration.name);
    }
  });

  it('registers every migration file of the folder, under the class its file name promises', () => {
    const files = readdirSync(__dirname).filter((file) => /^\d{13}-.*\.ts$/.test(file) && !file.endsWith('.spec.ts'));
    expect(files.map(expectedClassName).sort()).toEqual(migrations.map((migration) => migration.name).sort());
  });
});
