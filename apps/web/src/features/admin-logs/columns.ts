import { useCallback, useState } from 'react';
import { LOGS, type LogKind } from './api';

const storageKey = (kind: LogKind) => `fed.console.logs.columns.${kind}`;

/**
 * The columns chosen for `kind` last time (localStorage), in the order shown, else the log's defaults; unknown
 * and repeated names are dropped.
 */
export function storedColumns(kind: LogKind): string[] {
  const spec = LOGS[kind];
  try {
    const stored = JSON.parse(window.localStorage.getItem(storageKey(kind)) ?? 'null') as unknown;
    if (Array.isArray(stored)) {
      return stored.filter(
        (field, at): field is string =>
          typeof field === 'string' && spec.fields.includes(field) && stored.indexOf(field) === at,
      );
    }
  } catch {
    // Unreadable or not JSON: the defaults.
  }
  return [...spec.defaults];
}

/** The shown columns of `kind` and a toggle that keeps the choice per log. */
export function useColumns(kind: LogKind): [string[], (field: string, shown: boolean) => void] {
  const [chosen, setChosen] = useState(() => ({ kind, columns: storedColumns(kind) }));
  const columns = chosen.kind === kind ? chosen.columns : storedColumns(kind);
  const toggle = useCallback(
    (field: string, shown: boolean) => {
      const current = chosen.kind === kind ? chosen.columns : storedColumns(kind);
      // The columns keep their places; a column shown again comes last (the defaults are not in the record's order).
      const next = shown
        ? [...current.filter((name) => name !== field), field]
        : current.filter((name) => name !== field);
      try {
        window.localStorage.setItem(storageKey(kind), JSON.stringify(next));
      } catch {
        // Storage full or refused: the choice lasts for this page only.
      }
      setChosen({ kind, columns: next });
    },
    [chosen, kind],
  );
  return [columns, toggle];
}
