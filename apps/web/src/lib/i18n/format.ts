import type { UiLocale } from '@fed/contracts/locales';
import { useLocale } from './locale';

/** Numbers, sizes, durations and dates in the page's language (Intl), so no feature spells out a unit. */
export interface Formats {
  /** A step's duration: milliseconds under a second, else seconds with one decimal. */
  duration(ms: number): string;
  /** A file's size in bytes, kilobytes or megabytes. */
  bytes(count: number): string;
  /** How long ago (or until) an ISO time, in the largest whole unit; the exact time for older ones. */
  relativeTime(iso: string, now?: number): string;
  /** A date and time in full, as a `<time>`'s title shows it. */
  dateTime(iso: string): string;
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 7],
];

export function formatsFor(locale: UiLocale): Formats {
  const unit = (name: string, digits = 0, unitDisplay: 'short' | 'long' = 'short') =>
    new Intl.NumberFormat(locale, { style: 'unit', unit: name, unitDisplay, maximumFractionDigits: digits });
  const ms = unit('millisecond');
  const s = unit('second', 1);
  // Long: the short form has no plural in English or Japanese ('152 byte'), the long one does ('152 bytes').
  const b = unit('byte', 0, 'long');
  const kb = unit('kilobyte');
  const mb = unit('megabyte', 1);
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const day = new Intl.DateTimeFormat(locale, { dateStyle: 'medium' });
  const full = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  return {
    duration: (value) => (value < 1000 ? ms.format(value) : s.format(value / 1000)),
    bytes: (count) =>
      count < 1024 ? b.format(count) : count < 1024 ** 2 ? kb.format(count / 1024) : mb.format(count / 1024 ** 2),
    relativeTime: (iso, now = Date.now()) => {
      const at = Date.parse(iso);
      if (!Number.isFinite(at)) return '';
      let amount = (at - now) / 1000;
      for (const [name, size] of UNITS) {
        if (Math.abs(amount) < size) return relative.format(Math.round(amount), name);
        amount /= size;
      }
      return day.format(at);
    },
    dateTime: (iso) => {
      const at = Date.parse(iso);
      return Number.isFinite(at) ? full.format(at) : '';
    },
  };
}

/** One set per language: Intl formatters are costly to make, and every step and list entry uses them. */
const made = new Map<UiLocale, Formats>();

export function useFormats(): Formats {
  const { locale } = useLocale();
  let formats = made.get(locale);
  if (!formats) {
    formats = formatsFor(locale);
    made.set(locale, formats);
  }
  return formats;
}
