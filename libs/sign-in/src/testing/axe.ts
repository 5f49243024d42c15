import axe from 'axe-core';
import { type Page } from 'playwright-core';

/** The rules of WCAG 2.1 levels A and AA. */
export const WCAG_21_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] as const;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** The page must come from a CSP-bypassing context (`axeContext`), since the provider's pages allow no script. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: axe.source });
  return page.evaluate(
    async (tags) => {
      // Runs in the page, where axe-core has just put itself on the global object.
      const inPage = (globalThis as unknown as { axe: typeof axe }).axe;
      const result = await inPage.run({ runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
      return result.violations.map((violation) => ({
        id: violation.id,
        impact: violation.impact ?? null,
        help: violation.help,
        targets: violation.nodes.map((node) => node.target.join(' ')),
      }));
    },
    [...WCAG_21_AA_TAGS],
  );
}

export async function expectNoAxeViolations(page: Page): Promise<void> {
  const violations = await axeViolations(page);
  const summary = violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(', ')}`);
  expect({ url: page.url(), violations: summary }).toEqual({ url: page.url(), violations: [] });
}
