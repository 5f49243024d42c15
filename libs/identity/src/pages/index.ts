export {
  type UiLocale,
  defaultLocale,
  isRightToLeft,
  isUiLocale,
  matchLocale,
  negotiateLocale,
  uiLocales,
} from '@fed/contracts';
export { type Messages, type Translate, defineCatalog, placeholdersOf, registeredCatalogs } from './catalog';
export { PAGE_SECURITY_HEADERS, type PageView, escapeHtml, renderPage } from './page-shell';
