export type CatalogErrorCode =
  | 'invalid_key'
  | 'invalid_name'
  | 'invalid_description'
  | 'invalid_instructions'
  | 'nothing_to_update'
  | 'persona_exists'
  | 'persona_not_found'
  | 'playbook_not_found'
  | 'skill_not_found';

/** A refused change to the catalog (platformctl); the message is safe to show to an operator. */
export class CatalogError extends Error {
  constructor(
    readonly code: CatalogErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CatalogError';
  }
}
