import type { Request } from 'express';
import type Provider from 'oidc-provider';
import { isUiLocale, negotiateLocale, type UiLocale } from '@fed/identity/internal';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

// A language picked with a page's switcher holds for the rest of one authorization request: the link
// carries it (`?lang=`), each form returns it (a hidden field), and the login result hands it to the
// next interaction of the same request (oidc-provider keeps a result as the next one's `lastSubmission`).

export interface InteractionLocale {
  locale: UiLocale;
  /** The switcher's choice, if any; only one of the 14 tags is ever kept. */
  chosen?: UiLocale;
}

/** The result key that carries the choice from the login to the consent interaction. */
export const CHOSEN_LOCALE_RESULT = 'chosenLocale';

/** `details` undefined: the interaction is unknown or expired, so only the browser's own hints count. */
export function interactionLocale(details: Details | undefined, req: Request, formChoice?: unknown): InteractionLocale {
  const carried = details?.lastSubmission?.[CHOSEN_LOCALE_RESULT];
  const candidates = [formChoice, req.query.lang, carried];
  const chosen = candidates.find(isUiLocale);
  const locale = negotiateLocale({
    chosen,
    uiLocales: details?.params.ui_locales,
    acceptLanguage: req.headers['accept-language'],
  });
  return { locale, chosen };
}

/** The links of the switcher: this interaction's page in each language. */
export function interactionSwitcher(path: string): (locale: UiLocale) => string {
  return (locale) => `${path}?lang=${encodeURIComponent(locale)}`;
}
