// The page and language contract of the provider's pages (login, consent, sign-up, identity provider).
export {
  type UiLocale,
  defaultLocale,
  isRightToLeft,
  isUiLocale,
  matchLocale,
  negotiateLocale,
  uiLocales,
} from './locales';
export { type Messages, type Translate, defineCatalog, placeholdersOf, registeredCatalogs } from './catalog';
export { PAGE_SECURITY_HEADERS, type PageView, escapeHtml, renderPage } from './page-shell';
