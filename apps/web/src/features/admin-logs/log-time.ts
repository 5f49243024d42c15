import { useMemo } from 'react';
import { useLocale } from '../../lib/i18n/locale';

/**
 * A log row's time in the page's language, to the second and in UTC (the date filter's days are UTC days, so
 * the rows shown for a day all carry that day's date).
 */
export function useLogTime(): (iso: string) => string {
  const { locale } = useLocale();
  return useMemo(() => {
    const format = new Intl.DateTimeFormat(locale, {
      dateStyle: 'medium',
      timeStyle: 'medium',
      timeZone: 'UTC',
    });
    return (iso: string) => {
      const at = Date.parse(iso);
      return Number.isFinite(at) ? format.format(at) : iso;
    };
  }, [locale]);
}
