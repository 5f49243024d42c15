import { isUuid } from '@fed/contracts';
import { BlockList } from 'node:net';

/** Who calls the gateway: a virtual API key, or a service account with a client-credentials token. */
export interface GatewayPrincipal {
  readonly kind: 'api-key' | 'client';
  /** `virtualKeyId` of the gateway log (keys only). */
  readonly virtualKeyId: string | null;
  /** The key's name, or the token's client id. */
  readonly label: string;
  /** The key's tenant, or the token's `tenant.id`: whose logs its calls go to; null: the operator's. */
  readonly tenantId: string | null;
  /** Model names and aliases allowed; null: every model. */
  readonly allowedModels: ReadonlySet<string> | null;
  readonly rpmLimit: number | null;
  readonly tpmLimit: number | null;
  /** Hard quota per UTC day, in millionths of a dollar. */
  readonly dailyBudgetMicroUsd: number | null;
  /** Networks the key may be used from; null: wherever the gateway allows. */
  readonly networks: BlockList | null;
  /** Unix milliseconds after which the key no longer works; null: no expiry. */
  readonly expiresAt: number | null;
}

/** The header in which a credential of no tenant (the operator's, such as the agent's key) names the tenant it calls for. */
export const CLIENT_TENANT_HEADER = 'x-client-tenant-id';

/**
 * The principal whose tenant the call's log rows go to. A tenant's key or token always logs to its own tenant
 * (a header from its holder is ignored: it could otherwise write into another tenant's logs); a credential of
 * no tenant belongs to the operator, who may say which tenant a call is made for (the agent's turns).
 */
export function onBehalfOf(principal: GatewayPrincipal, tenantHeader: string | undefined): GatewayPrincipal {
  if (principal.tenantId !== null || tenantHeader === undefined || !isUuid(tenantHeader)) return principal;
  return { ...principal, tenantId: tenantHeader.toLowerCase() };
}

/** A BlockList (used as an allow list) of normalized `address/prefix` entries. */
export function networkList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefix = ''] = cidr.split('/');
    list.addSubnet(address, Number(prefix), address.includes(':') ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** Whether `address` (as the socket reports it, IPv4-mapped IPv6 included) is in `list`. */
export function addressAllowed(list: BlockList, address: string): boolean {
  if (address.startsWith('::ffff:') && address.includes('.')) {
    const v4 = address.slice(7);
    return list.check(v4, 'ipv4') || list.check(address, 'ipv6');
  }
  return list.check(address, address.includes(':') ? 'ipv6' : 'ipv4');
}
