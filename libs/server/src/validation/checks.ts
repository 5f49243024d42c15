/**
 * Several property decorators as one, checked in the order listed: the pipe answers with the first
 * that fails, as it does for decorators written one above the other. (TypeScript applies stacked
 * decorators bottom-up, so they are applied here last to first.)
 */
export function Checks(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    for (const decorator of [...decorators].reverse()) decorator(target, property);
  };
}
