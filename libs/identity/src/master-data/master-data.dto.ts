import { Checks, withCode } from '@fed/server';
import { IsDefined, IsString, ValidateBy } from 'class-validator';
import { type MasterRecord } from './master-data.repository';
import { MASTER_CODE_MESSAGE, MAX_LABEL_CHARACTERS, isMasterCode, isMasterLabel } from './master-data.rules';

// The spec names the scope (master:manage) but not the record's fields.

export interface MasterRecordResponse {
  code: string;
  label: string;
  /** The platform operator's entry, which every tenant sees and none changes (403 `platform_entry_read_only`). */
  platformWide: boolean;
  createdAt: string;
  updatedAt: string;
}

export function toMasterRecordResponse(record: MasterRecord): MasterRecordResponse {
  return {
    code: record.code,
    label: record.label,
    platformWide: record.tenantId === null,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

const refusal = (message: string) => withCode('invalid_parameter', message);
const LABEL_MESSAGE = `label must be 1-${MAX_LABEL_CHARACTERS} printable characters`;

function MasterCode(): PropertyDecorator {
  return Checks(
    IsDefined(refusal('code is required')),
    ValidateBy({ name: 'isMasterCode', validator: { validate: isMasterCode } }, refusal(`code ${MASTER_CODE_MESSAGE}`)),
  );
}

function MasterLabel(): PropertyDecorator {
  return Checks(
    IsDefined(refusal('label is required')),
    IsString(refusal(LABEL_MESSAGE)),
    ValidateBy({ name: 'isMasterLabel', validator: { validate: isMasterLabel } }, refusal(LABEL_MESSAGE)),
  );
}

export class MasterCodeParams {
  @MasterCode()
  code!: string;
}

export class CreateMasterRecordBody {
  @MasterCode()
  code!: string;

  @MasterLabel()
  label!: string;
}

/** A code is never changed: users carry it. */
export class UpdateMasterRecordBody {
  @MasterLabel()
  label!: string;
}
