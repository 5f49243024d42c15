import type { Request } from 'express';
import type Provider from 'oidc-provider';
import { isUiLocale, negotiateLocale, type UiLocale } from '@fed/identity/internal';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

// A switcher choice holds for the rest of one authorization request: links carry `?lang=`, forms a hidden
// field, and the login result hands it on (oidc-provider keeps it as the next interaction's `lastSubmission`).

export interface InteractionLocale {
  locale: UiLocale;
  /** Only one of the 14 tags is ever kept. */
  chosen?: UiLocale;
}

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

export function interactionSwitcher(path: string): (locale: UiLocale) => string {
  return (locale) => `${path}?lang=${encodeURIComponent(locale)}`;
}
