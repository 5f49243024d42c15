import { type AccessTokenPrincipal } from '@fed/auth';
import { type MasterDataKind } from './master-data.entity';
import { MasterDataError } from './master-data.errors';
import { type MasterDataTenant, type MasterRecord, MasterDataRepository, type TakenBy } from './master-data.repository';
import { checkCode, checkLabel } from './master-data.rules';

/** A token without a tenant (the operator's integration) manages the platform-wide entries. */
export function masterDataTenantOf(principal: AccessTokenPrincipal): MasterDataTenant {
  return principal.tenant?.id ?? null;
}

const nouns: Record<MasterDataKind, string> = { organization: 'organization', jobType: 'job type' };

const taken: Record<TakenBy, string> = {
  own: 'exists',
  platform: 'exists platform-wide',
  tenant: "is a tenant's own: a platform-wide code may not be one a tenant has",
};

/** For the admin API, the users' lists and platformctl; every call names whose entries it acts on. */
export class MasterDataService {
  constructor(
    private readonly repository: MasterDataRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Not paginated. */
  list(kind: MasterDataKind, tenant: MasterDataTenant): Promise<MasterRecord[]> {
    return this.repository.list(kind, tenant);
  }

  async create(
    kind: MasterDataKind,
    tenant: MasterDataTenant,
    input: { code: string; label: string },
  ): Promise<MasterRecord> {
    const created = await this.repository.insert(
      kind,
      tenant,
      checkCode(input.code),
      checkLabel(input.label),
      this.now(),
    );
    if (typeof created === 'string') {
      throw new MasterDataError('code_exists', `${nouns[kind]} ${input.code} ${taken[created]}`);
    }
    return created;
  }

  async update(
    kind: MasterDataKind,
    tenant: MasterDataTenant,
    code: string,
    input: { label: string },
  ): Promise<MasterRecord> {
    const outcome = await this.repository.updateLabel(
      kind,
      tenant,
      checkCode(code),
      checkLabel(input.label),
      this.now(),
    );
    if (outcome.kind === 'absent') throw notFound(kind, code);
    if (outcome.kind === 'platform') throw readOnly(kind, code);
    return outcome.value;
  }

  async delete(kind: MasterDataKind, tenant: MasterDataTenant, code: string): Promise<void> {
    const outcome = await this.repository.delete(kind, tenant, checkCode(code));
    if (outcome.kind === 'absent') throw notFound(kind, code);
    if (outcome.kind === 'platform') throw readOnly(kind, code);
    if (outcome.value === 'in_use') {
      throw new MasterDataError('in_use', `users still belong to ${nouns[kind]} ${code}; change them first`);
    }
  }
}

function notFound(kind: MasterDataKind, code: string): MasterDataError {
  return new MasterDataError('record_not_found', `no ${nouns[kind]} with code ${code}`);
}

function readOnly(kind: MasterDataKind, code: string): MasterDataError {
  return new MasterDataError(
    'platform_entry',
    `${nouns[kind]} ${code} is platform-wide: only the platform operator changes or deletes it`,
  );
}
