import { isPrintableLine } from '@fed/contracts';
import { type TenantType, tenantTypes } from './tenant.entity';
import { TenantsError } from './tenants.errors';

export const MAX_TENANT_NAME_CHARACTERS = 100;
export const MAX_ENDPOINT_CHARACTERS = 2000;

export const TENANT_NAME_MESSAGE = `name must be 1-${MAX_TENANT_NAME_CHARACTERS} printable characters, without leading or trailing spaces`;
export const TENANT_TYPE_MESSAGE = `type must be ${tenantTypes.join(' or ')}`;
export const ENDPOINT_MESSAGE = `endpoint must be an absolute http or https URL of at most ${MAX_ENDPOINT_CHARACTERS} characters, without credentials or fragment`;

/** As a realm file names it: also the `idp_hint` that sends a browser to the tenant's own provider. */
export function isTenantName(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.trim() === value &&
    [...value].length <= MAX_TENANT_NAME_CHARACTERS &&
    isPrintableLine(value)
  );
}

export function isTenantType(value: unknown): value is TenantType {
  return typeof value === 'string' && (tenantTypes as readonly string[]).includes(value);
}

/** `tenant.endpoint` of every token: kept as written, so it must already be a clean URL. */
export function isTenantEndpoint(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > MAX_ENDPOINT_CHARACTERS || !isPrintableLine(value)) return false;
  if (value.trim() !== value) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && !url.hash;
}

/** The same rules for every way in (HTTP, platformctl); every value is hostile input. */
export function checkTenantName(value: unknown): string {
  if (!isTenantName(value)) throw new TenantsError('invalid_name', TENANT_NAME_MESSAGE);
  return value;
}

export function checkTenantType(value: unknown): TenantType {
  if (!isTenantType(value)) throw new TenantsError('invalid_type', TENANT_TYPE_MESSAGE);
  return value;
}

export function checkTenantEndpoint(value: unknown): string {
  if (!isTenantEndpoint(value)) throw new TenantsError('invalid_endpoint', ENDPOINT_MESSAGE);
  return value;
}
