import { type ClientEntity } from '@fed/identity/internal';

export interface GrantRequest {
  client: ClientEntity;
  /** The form's parameters, each present at most once. */
  params: Readonly<Record<string, string | undefined>>;
}

export type GrantHandler = (request: GrantRequest) => Promise<object>;
