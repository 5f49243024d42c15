/** Not translatable to the other family without changing its meaning. */
export class TranslationError extends Error {
  override readonly name = 'TranslationError';

  constructor(
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}
