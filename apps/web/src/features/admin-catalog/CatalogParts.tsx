import { type catalogText } from './messages';
import { type Page } from './api';

/** The API's refusal as it says it, with its code (`invalid_parameter`, `upstream_api_error`, ...). */
export function Pager({
  t,
  page,
  data,
  onPage,
}: {
  t: (typeof catalogText)['en'];
  page: number;
  data: Page<unknown>;
  onPage(page: number): void;
}) {
  const pages = Math.max(1, Math.ceil(data.total / data.limit));
  if (pages <= 1 && page <= 1) return null;
  return (
    <nav className="pager" aria-label={t.pages}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t.previous}
      </button>
      <span aria-live="polite">{t.pageOf(page, pages, data.total)}</span>
      <button type="button" disabled={!data.hasMore} onClick={() => onPage(page + 1)}>
        {t.next}
      </button>
    </nav>
  );
}
