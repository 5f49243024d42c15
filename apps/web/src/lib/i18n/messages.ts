import type { UiLocale } from '@fed/contracts/locales';
import { useLocale } from './locale';

/** A message is text, or a function of the values it shows (a count, a name). */
export type Message = string | ((...values: never[]) => string);

/**
 * Each feature keeps its own catalog: the English entries set the keys and each message's shape, and the
 * compiler refuses a language that lacks a key or gives it another shape.
 */
export type Catalog<M extends Record<string, Message>> = Record<UiLocale, M>;

export function defineMessages<M extends Record<string, Message>>(
  catalog: { en: M } & Record<UiLocale, M>,
): Catalog<M> {
  return catalog;
}

/** The messages of the page's language. */
export function useMessages<M extends Record<string, Message>>(catalog: Catalog<M>): M {
  return catalog[useLocale().locale];
}
