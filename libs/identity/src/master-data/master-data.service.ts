import { type MasterDataKind } from './master-data.entity';
import { MasterDataError } from './master-data.errors';
import { type MasterRecord, MasterDataRepository } from './master-data.repository';
import { checkCode, checkLabel } from './master-data.rules';

const nouns: Record<MasterDataKind, string> = { organization: 'organization', jobType: 'job type' };

/** Organizations and job types, for the admin API (`master:manage`) and platformctl alike. */
export class MasterDataService {
  constructor(
    private readonly repository: MasterDataRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Every record of the kind, by code (the lists are not paginated). */
  list(kind: MasterDataKind): Promise<MasterRecord[]> {
    return this.repository.list(kind);
  }

  async create(kind: MasterDataKind, input: { code: string; label: string }): Promise<MasterRecord> {
    const created = await this.repository.insert(kind, checkCode(input.code), checkLabel(input.label), this.now());
    if (!created) throw new MasterDataError('code_exists', `${nouns[kind]} ${input.code} exists`);
    return created;
  }

  /** A new label; users who carry the code show it from now on. */
  async update(kind: MasterDataKind, code: string, input: { label: string }): Promise<MasterRecord> {
    const updated = await this.repository.updateLabel(kind, checkCode(code), checkLabel(input.label), this.now());
    if (!updated) throw notFound(kind, code);
    return updated;
  }

  /** Refused while a user carries the code. */
  async delete(kind: MasterDataKind, code: string): Promise<void> {
    const outcome = await this.repository.delete(kind, checkCode(code));
    if (outcome === 'absent') throw notFound(kind, code);
    if (outcome === 'in_use') {
      throw new MasterDataError('in_use', `users still belong to ${nouns[kind]} ${code}; change them first`);
    }
  }
}

function notFound(kind: MasterDataKind, code: string): MasterDataError {
  return new MasterDataError('record_not_found', `no ${nouns[kind]} with code ${code}`);
}
