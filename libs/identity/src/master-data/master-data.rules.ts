import { isPrintableLine } from '@fed/contracts';
import { MasterDataError } from './master-data.errors';

/** A master-data code, as records and the user filters take it: 1-50 of letters, digits, `-`, `_`. */
export const MASTER_CODE = /^[A-Za-z0-9_-]{1,50}$/;
export const MASTER_CODE_MESSAGE = 'must be 1-50 letters, digits, "-" or "_"';
export const MAX_LABEL_CHARACTERS = 200;

export function isMasterCode(value: unknown): value is string {
  return typeof value === 'string' && MASTER_CODE.test(value);
}

export function isMasterLabel(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.trim() !== '' &&
    [...value].length <= MAX_LABEL_CHARACTERS &&
    isPrintableLine(value)
  );
}

export function checkCode(code: string): string {
  if (!isMasterCode(code)) throw new MasterDataError('invalid_code', `code ${MASTER_CODE_MESSAGE}`);
  return code;
}

export function checkLabel(label: string): string {
  if (!isMasterLabel(label)) {
    throw new MasterDataError('invalid_label', `label must be 1-${MAX_LABEL_CHARACTERS} printable characters`);
  }
  return label.trim();
}
