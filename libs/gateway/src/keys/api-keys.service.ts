import { isUuid } from '@fed/contracts';
import { parseNetworks } from '@fed/config';
import { hash, randomBytes, randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeysError } from './api-keys.errors';

export type ApiKeyView = Omit<ApiKeyEntity, 'keyHash'>;

export interface ApiKeySettings {
  name: string;
  allowedModels?: string[];
  rpmLimit?: number;
  tpmLimit?: number;
  dailyBudgetUsd?: number;
  allowedNetworks?: string[];
  expiresAt?: Date;
  /** Absent: the operator's own key. */
  tenantId?: string;
}

export interface IssuedApiKey {
  key: ApiKeyView;
  /** Shown once: only its hash is stored. */
  apiKey: string;
}

/** The one-shot hash, no Hash object: it runs on every gateway call. */
export function hashApiKey(apiKey: string): Buffer {
  return hash('sha256', apiKey, 'buffer');
}

function toView(key: ApiKeyEntity): ApiKeyView {
  const { keyHash: _keyHash, ...view } = key;
  return view;
}

function positiveInteger(value: number | undefined, what: string): number | null {
  if (value === undefined) return null;
  if (!Number.isInteger(value) || value < 1 || value > 2_000_000_000)
    throw new ApiKeysError('invalid_limit', `${what} must be an integer from 1 to 2000000000`);
  return value;
}

export class ApiKeysService {
  private readonly now: () => Date;

  constructor(
    private readonly repository: ApiKeyRepository,
    private readonly settings: { keyPrefix: string; now?: () => Date },
  ) {
    this.now = settings.now ?? (() => new Date());
  }

  async create(settings: ApiKeySettings): Promise<IssuedApiKey> {
    const name = settings.name.trim();
    if (!/^[\p{L}\p{N} ._@:/-]{1,100}$/u.test(name))
      throw new ApiKeysError('invalid_name', 'name must be 1-100 letters, digits, spaces or . _ @ : / -');
    const budget = settings.dailyBudgetUsd;
    if (
      budget !== undefined &&
      !(Number.isFinite(budget) && budget >= 0 && budget < 1e9 && Number(budget.toFixed(4)) === budget)
    )
      throw new ApiKeysError(
        'invalid_limit',
        'the daily budget must be a number of dollars from 0, with at most 4 decimals',
      );
    const models = settings.allowedModels?.map((model) => model.trim());
    if (models?.some((model) => !/^[\w.:/@-]{1,200}$/.test(model)))
      throw new ApiKeysError('invalid_model', 'model names are 1-200 letters, digits or . : / @ _ -');
    let networks: string[] | null = null;
    if (settings.allowedNetworks) {
      try {
        networks = parseNetworks(settings.allowedNetworks.join(','));
      } catch (error) {
        throw new ApiKeysError('invalid_network', (error as Error).message);
      }
    }
    if (settings.tenantId !== undefined && !isUuid(settings.tenantId))
      throw new ApiKeysError('invalid_tenant', 'the tenant must be a tenant id (a UUID)');
    const apiKey = `${this.settings.keyPrefix}${randomBytes(32).toString('base64url')}`;
    const key = Object.assign(new ApiKeyEntity(), {
      id: randomUUID(),
      name,
      keyHash: hashApiKey(apiKey),
      keyHint: `${this.settings.keyPrefix}...${apiKey.slice(-4)}`,
      allowedModels: models && models.length > 0 ? [...new Set(models)] : null,
      rpmLimit: positiveInteger(settings.rpmLimit, 'the request limit per minute'),
      tpmLimit: positiveInteger(settings.tpmLimit, 'the token limit per minute'),
      dailyBudgetUsd: budget === undefined ? null : budget.toFixed(4),
      allowedNetworks: networks,
      tenantId: settings.tenantId?.toLowerCase() ?? null,
      createdAt: this.now(),
      expiresAt: settings.expiresAt ?? null,
      revokedAt: null,
    });
    await this.repository.insert(key);
    return { key: toView(key), apiKey };
  }

  async list(): Promise<ApiKeyView[]> {
    return (await this.repository.list()).map(toView);
  }

  /** A kept agent key stays in use while it is live. */
  async isLive(apiKey: string): Promise<boolean> {
    const row = await this.repository.findByHash(hashApiKey(apiKey));
    return !!row && !row.revokedAt && (!row.expiresAt || row.expiresAt > this.now());
  }

  /** By id, or the one live key with this name. */
  async revoke(idOrName: string): Promise<string> {
    let id = idOrName;
    if (!isUuid(idOrName)) {
      const named = await this.repository.liveNamed(idOrName);
      if (named.length > 1)
        throw new ApiKeysError(
          'key_not_found',
          `${named.length} live keys are named ${JSON.stringify(idOrName)}: give the id`,
        );
      id = named[0]?.id ?? '';
    }
    if (!id || !(await this.repository.revoke(id, this.now())))
      throw new ApiKeysError('key_not_found', `no live key ${JSON.stringify(idOrName)}`);
    return id;
  }
}

export function apiKeysServiceFor(
  dataSource: DataSource,
  settings: { keyPrefix: string; now?: () => Date },
): ApiKeysService {
  return new ApiKeysService(new ApiKeyRepository(dataSource), settings);
}
