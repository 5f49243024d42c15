// What a deliverable's `filepath` may be: the runtime's `write_file` and the download check the same rule.

export const MAX_DELIVERABLE_PATH = 255;
/** Relative: segments of letters, digits, `.`, `_`, space and `-`, each starting with a letter or digit. */
export const DELIVERABLE_PATH = /^[A-Za-z0-9][A-Za-z0-9._ -]*(\/[A-Za-z0-9][A-Za-z0-9._ -]*)*$/;

/** Why `filepath` cannot name a deliverable, or null. */
export function deliverablePathProblem(filepath: unknown): string | null {
  if (typeof filepath !== 'string' || filepath.length === 0 || filepath.length > MAX_DELIVERABLE_PATH) {
    return `filepath must be 1 to ${MAX_DELIVERABLE_PATH} characters`;
  }
  if (!DELIVERABLE_PATH.test(filepath)) {
    return 'filepath must be relative: segments of letters, digits, ".", "_", " " and "-" separated by "/", each starting with a letter or digit';
  }
  if (filepath.includes('..')) return 'filepath must not contain ".."';
  return null;
}
