import { type UiLocale } from '@fed/contracts';

// Every catalog registers itself here so that one test checks them all, in all 14 languages.

export type Messages<K extends string> = Readonly<Record<UiLocale, Readonly<Record<K, string>>>>;
export type Translate<K extends string> = (
  locale: UiLocale,
  key: K,
  vars?: Readonly<Record<string, string | number>>,
) => string;

export interface RegisteredCatalog {
  area: string;
  messages: Messages<string>;
}

const registry = new Map<string, RegisteredCatalog>();

/** Values are inserted unescaped (the page escapes the whole text); a placeholder without a value stays visible. */
export function defineCatalog<K extends string>(area: string, messages: Messages<K>): Translate<K> {
  if (registry.has(area)) throw new Error(`the message catalog "${area}" is defined twice`);
  registry.set(area, { area, messages });
  return (locale, key, vars) =>
    messages[locale][key].replace(/\{([a-zA-Z][a-zA-Z0-9_]*)\}/g, (placeholder, name: string) =>
      vars && name in vars ? String(vars[name]) : placeholder,
    );
}

/** Only catalogs whose modules have been imported. */
export function registeredCatalogs(): readonly RegisteredCatalog[] {
  return [...registry.values()];
}

export function placeholdersOf(message: string): string[] {
  return [...message.matchAll(/\{([a-zA-Z][a-zA-Z0-9_]*)\}/g)].map((match) => match[1]).sort();
}
