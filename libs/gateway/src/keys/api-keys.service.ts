import { type NumberedPageParams, isUuid } from '@fed/contracts';
import { parseNetworks } from '@fed/config';
import { hash, randomBytes, randomUUID } from 'node:crypto';
import { type DataSource, type QueryDeepPartialEntity } from 'typeorm';
import { type ApiKeyChangeNotifier, UNANNOUNCED_KEY_CHANGES } from './api-key-changes';
import { ApiKeyEntity } from './api-key.entity';
import { type ApiKeyFilter, ApiKeyRepository, type ApiKeyState } from './api-key.repository';
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
  /** Counted from now by the service's clock; not with `expiresAt`. */
  expiresInDays?: number;
  /** Absent: the operator's own key. */
  tenantId?: string;
}

/** Absent: unchanged; null: no limit (every model, any network the gateway allows, no expiry). */
export interface ApiKeyUpdate {
  name?: string;
  allowedModels?: string[] | null;
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  dailyBudgetUsd?: number | null;
  allowedNetworks?: string[] | null;
  expiresAt?: Date | null;
  expiresInDays?: number;
}

export interface IssuedApiKey {
  key: ApiKeyView;
  /** Shown once: only its hash is stored. */
  apiKey: string;
}

export interface ApiKeyPage {
  keys: ApiKeyView[];
  total: number;
}

export interface ApiKeysServiceSettings {
  keyPrefix: string;
  now?: () => Date;
  /** Absent: no running gateway is told (they reread a cached key within 30 s). */
  changes?: ApiKeyChangeNotifier;
}

export const MAX_EXPIRY_DAYS = 3650;

/** The one-shot hash, no Hash object: it runs on every gateway call. */
export function hashApiKey(apiKey: string): Buffer {
  return hash('sha256', apiKey, 'buffer');
}

export function apiKeyStateOf(key: Pick<ApiKeyView, 'revokedAt' | 'expiresAt'>, now: Date): ApiKeyState {
  if (key.revokedAt) return 'revoked';
  return key.expiresAt && key.expiresAt.getTime() <= now.getTime() ? 'expired' : 'live';
}

function toView(key: ApiKeyEntity): ApiKeyView {
  const { keyHash: _keyHash, ...view } = key;
  return view;
}

function validName(value: string): string {
  const name = value.trim();
  if (!/^[\p{L}\p{N} ._@:/-]{1,100}$/u.test(name))
    throw new ApiKeysError('invalid_name', 'name must be 1-100 letters, digits, spaces or . _ @ : / -');
  return name;
}

function positiveInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1 || value > 2_000_000_000)
    throw new ApiKeysError('invalid_limit', `${what} must be an integer from 1 to 2000000000`);
  return value;
}

function budget(value: number): string {
  if (!(Number.isFinite(value) && value >= 0 && value < 1e9 && Number(value.toFixed(4)) === value))
    throw new ApiKeysError(
      'invalid_limit',
      'the daily budget must be a number of dollars from 0, with at most 4 decimals',
    );
  return value.toFixed(4);
}

/** Null for an empty list: a key allowed no model at all would be a key that cannot be used. */
function validModels(values: string[]): string[] | null {
  const models = values.map((model) => model.trim());
  if (models.some((model) => !/^[\w.:/@-]{1,200}$/.test(model)))
    throw new ApiKeysError('invalid_model', 'model names are 1-200 letters, digits or . : / @ _ -');
  return models.length > 0 ? [...new Set(models)] : null;
}

function validNetworks(values: string[]): string[] {
  try {
    return parseNetworks(values.join(','));
  } catch (error) {
    throw new ApiKeysError('invalid_network', (error as Error).message);
  }
}

export class ApiKeysService {
  private readonly now: () => Date;
  private readonly changes: ApiKeyChangeNotifier;

  constructor(
    private readonly repository: ApiKeyRepository,
    private readonly settings: ApiKeysServiceSettings,
  ) {
    this.now = settings.now ?? (() => new Date());
    this.changes = settings.changes ?? UNANNOUNCED_KEY_CHANGES;
  }

  async create(settings: ApiKeySettings): Promise<IssuedApiKey> {
    const name = validName(settings.name);
    const dailyBudgetUsd = settings.dailyBudgetUsd === undefined ? null : budget(settings.dailyBudgetUsd);
    const allowedModels = settings.allowedModels ? validModels(settings.allowedModels) : null;
    const allowedNetworks = settings.allowedNetworks ? validNetworks(settings.allowedNetworks) : null;
    const expiresAt = this.expiry(settings.expiresAt, settings.expiresInDays);
    const tenantId = settings.tenantId === undefined ? null : await this.existingTenant(settings.tenantId);
    const apiKey = `${this.settings.keyPrefix}${randomBytes(32).toString('base64url')}`;
    const key = Object.assign(new ApiKeyEntity(), {
      id: randomUUID(),
      name,
      keyHash: hashApiKey(apiKey),
      keyHint: `${this.settings.keyPrefix}...${apiKey.slice(-4)}`,
      allowedModels,
      rpmLimit:
        settings.rpmLimit === undefined ? null : positiveInteger(settings.rpmLimit, 'the request limit per minute'),
      tpmLimit:
        settings.tpmLimit === undefined ? null : positiveInteger(settings.tpmLimit, 'the token limit per minute'),
      dailyBudgetUsd,
      allowedNetworks,
      tenantId,
      createdAt: this.now(),
      expiresAt: expiresAt ?? null,
      revokedAt: null,
    });
    await this.repository.insert(key);
    // A gateway may remember the key as unknown (tried before it existed) for a few seconds.
    await this.changes.keyChanged(key.id);
    return { key: toView(key), apiKey };
  }

  /** Every key that matches, newest first. */
  async list(filter: ApiKeyFilter = {}): Promise<ApiKeyView[]> {
    const [rows] = await this.repository.find(this.validFilter(filter), this.now());
    return rows.map(toView);
  }

  async listPage(filter: ApiKeyFilter, page: NumberedPageParams): Promise<ApiKeyPage> {
    const [rows, total] = await this.repository.find(this.validFilter(filter), this.now(), page);
    return { keys: rows.map(toView), total };
  }

  async get(keyId: string): Promise<ApiKeyView> {
    const key = isUuid(keyId) ? await this.repository.findById(keyId.toLowerCase()) : null;
    if (!key) throw new ApiKeysError('key_not_found', `no key ${JSON.stringify(keyId)}`);
    return toView(key);
  }

  /** Limits, models, networks, name, expiry of a key by id (or the one live key with this name); never of a revoked key. */
  async update(idOrName: string, update: ApiKeyUpdate): Promise<ApiKeyView> {
    const changes: QueryDeepPartialEntity<ApiKeyEntity> = {};
    if (update.name !== undefined) changes.name = validName(update.name);
    if (update.allowedModels !== undefined)
      changes.allowedModels = update.allowedModels === null ? null : validModels(update.allowedModels);
    if (update.rpmLimit !== undefined)
      changes.rpmLimit =
        update.rpmLimit === null ? null : positiveInteger(update.rpmLimit, 'the request limit per minute');
    if (update.tpmLimit !== undefined)
      changes.tpmLimit =
        update.tpmLimit === null ? null : positiveInteger(update.tpmLimit, 'the token limit per minute');
    if (update.dailyBudgetUsd !== undefined)
      changes.dailyBudgetUsd = update.dailyBudgetUsd === null ? null : budget(update.dailyBudgetUsd);
    if (update.allowedNetworks !== undefined)
      changes.allowedNetworks = update.allowedNetworks === null ? null : validNetworks(update.allowedNetworks);
    if (update.expiresAt !== undefined || update.expiresInDays !== undefined)
      changes.expiresAt = this.expiry(update.expiresAt ?? undefined, update.expiresInDays) ?? null;
    if (Object.keys(changes).length === 0)
      throw new ApiKeysError('nothing_to_change', 'give at least one of name, limits, models, networks or expiry');
    const key = await this.keyNamed(idOrName);
    if (!(await this.repository.updateUnrevoked(key.id, changes))) throw this.revokedError(key);
    await this.changes.keyChanged(key.id);
    return this.get(key.id);
  }

  /** A kept agent key stays in use while it is live. */
  async isLive(apiKey: string): Promise<boolean> {
    const row = await this.repository.findByHash(hashApiKey(apiKey));
    return !!row && apiKeyStateOf(row, this.now()) === 'live';
  }

  /** By id, or the one live key with this name; it stops working at once on every gateway told. */
  async revoke(idOrName: string): Promise<ApiKeyView> {
    const key = await this.keyNamed(idOrName);
    if (!(await this.repository.updateUnrevoked(key.id, { revokedAt: this.now() }))) throw this.revokedError(key);
    await this.changes.keyChanged(key.id);
    return this.get(key.id);
  }

  /** `platformctl --tenant`: a tenant's name or id. */
  async tenantIdOf(nameOrId: string): Promise<string> {
    const id = await this.repository.tenantIdNamed(nameOrId);
    if (!id) throw new ApiKeysError('invalid_tenant', `no tenant named ${JSON.stringify(nameOrId)}`);
    return id;
  }

  stateOf(key: ApiKeyView): ApiKeyState {
    return apiKeyStateOf(key, this.now());
  }

  private async keyNamed(idOrName: string): Promise<ApiKeyView> {
    if (isUuid(idOrName)) return this.get(idOrName);
    const named = await this.repository.liveNamed(idOrName);
    if (named.length > 1)
      throw new ApiKeysError(
        'key_not_found',
        `${named.length} live keys are named ${JSON.stringify(idOrName)}: give the id`,
      );
    if (!named[0]) throw new ApiKeysError('key_not_found', `no live key named ${JSON.stringify(idOrName)}`);
    return toView(named[0]);
  }

  private async existingTenant(tenantId: string): Promise<string> {
    if (!isUuid(tenantId)) throw new ApiKeysError('invalid_tenant', 'the tenant must be a tenant id (a UUID)');
    const id = tenantId.toLowerCase();
    if (!(await this.repository.tenantExists(id)))
      throw new ApiKeysError('invalid_tenant', `no tenant ${JSON.stringify(tenantId)}`);
    return id;
  }

  private validFilter(filter: ApiKeyFilter): ApiKeyFilter {
    if (filter.tenantId !== undefined && !isUuid(filter.tenantId))
      throw new ApiKeysError('invalid_tenant', 'the tenant must be a tenant id (a UUID)');
    return { ...filter, ...(filter.tenantId !== undefined ? { tenantId: filter.tenantId.toLowerCase() } : {}) };
  }

  /** A date in the future, or a number of days from now; undefined when neither is given. */
  private expiry(expiresAt: Date | undefined, expiresInDays: number | undefined): Date | undefined {
    if (expiresAt !== undefined && expiresInDays !== undefined)
      throw new ApiKeysError('invalid_expiry', 'give expiresAt or expiresInDays, not both');
    const now = this.now().getTime();
    if (expiresInDays !== undefined) {
      if (!Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > MAX_EXPIRY_DAYS)
        throw new ApiKeysError('invalid_expiry', `expiresInDays must be an integer from 1 to ${MAX_EXPIRY_DAYS}`);
      return new Date(now + expiresInDays * 86_400_000);
    }
    if (expiresAt === undefined) return undefined;
    if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now)
      throw new ApiKeysError('invalid_expiry', 'the expiry must be in the future (to stop a key now, revoke it)');
    if (expiresAt.getTime() > now + MAX_EXPIRY_DAYS * 86_400_000)
      throw new ApiKeysError('invalid_expiry', `the expiry must be within ${MAX_EXPIRY_DAYS} days`);
    return expiresAt;
  }

  private revokedError(key: ApiKeyView): ApiKeysError {
    return new ApiKeysError('key_revoked', `the key ${key.id} is revoked and cannot be changed`);
  }
}

export function apiKeysServiceFor(dataSource: DataSource, settings: ApiKeysServiceSettings): ApiKeysService {
  return new ApiKeysService(new ApiKeyRepository(dataSource), settings);
}
