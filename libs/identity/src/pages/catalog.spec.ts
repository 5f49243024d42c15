import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { placeholdersOf, registeredCatalogs } from './catalog';
import { negotiateLocale, uiLocales } from '@fed/contracts';

// Every file named `messages.ts` under the identity domain's two libraries (this one and libs/sign-in)
// defines catalogs; loading them all here means a new area is checked without being listed.
const domainSources = [join(__dirname, '..'), join(__dirname, '../../../sign-in/src')];

function messageFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return messageFiles(path);
    return entry.name === 'messages.ts' ? [path] : [];
  });
}

describe('message catalogs', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by path, found at run time
  for (const file of domainSources.flatMap(messageFiles)) require(file);
  const catalogs = registeredCatalogs();

  it('finds the catalogs of the login, consent, error and sign-out pages and of the page shell', () => {
    const areas = catalogs.map((catalog) => catalog.area);
    expect(areas).toEqual(expect.arrayContaining(['page-shell', 'sign-in', 'scopes', 'sign-out']));
  });

  it.each(catalogs.map((catalog) => [catalog.area, catalog] as const))(
    'has in catalog %s the same keys in all 14 languages, the same placeholders and no empty text',
    (_area, catalog) => {
      expect(Object.keys(catalog.messages).sort()).toEqual([...uiLocales].sort());
      const reference = catalog.messages.en;
      const keys = Object.keys(reference).sort();
      for (const locale of uiLocales) {
        const messages = catalog.messages[locale];
        expect({ locale, keys: Object.keys(messages).sort() }).toEqual({ locale, keys });
        for (const key of keys) {
          const message = messages[key];
          expect({ locale, key, empty: message.trim() === '' }).toEqual({ locale, key, empty: false });
          expect({ locale, key, placeholders: placeholdersOf(message) }).toEqual({
            locale,
            key,
            placeholders: placeholdersOf(reference[key]),
          });
        }
      }
    },
  );
});

describe('negotiateLocale', () => {
  it('defaults to ja', () => {
    expect(negotiateLocale({})).toBe('ja');
    expect(negotiateLocale({ uiLocales: 'xx yy', acceptLanguage: 'xx, *;q=0.5' })).toBe('ja');
  });

  it('takes the first supported language of ui_locales, matching a region-less tag by its language', () => {
    expect(negotiateLocale({ uiLocales: 'xx de fr' })).toBe('de-DE');
    expect(negotiateLocale({ uiLocales: 'EN-us' })).toBe('en');
    expect(negotiateLocale({ uiLocales: 'zh-Hant-TW' })).toBe('zh-TW');
    expect(negotiateLocale({ uiLocales: 'zh' })).toBe('zh-CN');
    expect(negotiateLocale({ uiLocales: 'pt-PT' })).toBe('pt-BR');
  });

  it('falls back to Accept-Language when ui_locales is absent or unsupported, honouring q-values', () => {
    expect(negotiateLocale({ acceptLanguage: 'fr-CA,fr;q=0.9,en;q=0.8' })).toBe('fr');
    expect(negotiateLocale({ acceptLanguage: 'xx, en;q=0.2, ko;q=0.7' })).toBe('ko');
    expect(negotiateLocale({ acceptLanguage: 'ar;q=0, vi;q=0.1' })).toBe('vi');
    expect(negotiateLocale({ uiLocales: 'xx', acceptLanguage: 'th' })).toBe('th');
    expect(negotiateLocale({ uiLocales: 'es', acceptLanguage: 'th' })).toBe('es');
  });

  it('prefers the switcher choice, but only one of the 14 tags exactly', () => {
    expect(negotiateLocale({ chosen: 'ar', uiLocales: 'en', acceptLanguage: 'fr' })).toBe('ar');
    expect(negotiateLocale({ chosen: 'AR', uiLocales: 'en' })).toBe('en');
    expect(negotiateLocale({ chosen: ['ar'], uiLocales: 'en' })).toBe('en');
    expect(negotiateLocale({ chosen: '<script>' })).toBe('ja');
  });

  it('stays bounded on a huge or malformed Accept-Language', () => {
    expect(negotiateLocale({ acceptLanguage: `${'x;q=abc,'.repeat(100_000)}en` })).toBe('ja');
    expect(negotiateLocale({ acceptLanguage: ';;;,,,q=1' })).toBe('ja');
  });
});
