/**
 * Checked in the order listed, as stacked decorators read. TypeScript applies stacked decorators
 * bottom-up, so they are applied here last to first.
 */
export function Checks(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    for (const decorator of [...decorators].reverse()) decorator(target, property);
  };
}
