import { isUuid } from '@fed/contracts';
import { BlockList } from 'node:net';

/** A virtual API key, or a service account with a client-credentials token. */
export interface GatewayPrincipal {
  readonly kind: 'api-key' | 'client';
  /** Keys only. */
  readonly virtualKeyId: string | null;
  /** The key's name, or the token's client id. */
  readonly label: string;
  /** Whose logs its calls go to; null: the operator's. */
  readonly tenantId: string | null;
  /** Names and aliases; null: every model. */
  readonly allowedModels: ReadonlySet<string> | null;
  readonly rpmLimit: number | null;
  readonly tpmLimit: number | null;
  /** Per UTC day, in millionths of a dollar. */
  readonly dailyBudgetMicroUsd: number | null;
  /** Null: wherever the gateway allows. */
  readonly networks: BlockList | null;
  /** Unix ms; null: no expiry. */
  readonly expiresAt: number | null;
}

/** Where a credential of no tenant (the operator's, such as the agent's key) names the tenant it calls for. */
export const CLIENT_TENANT_HEADER = 'x-client-tenant-id';

/**
 * A tenant's credential always logs to its own tenant: a header from its holder could otherwise write
 * into another tenant's logs. Only the operator may name the tenant (the agent's turns).
 */
export function onBehalfOf(principal: GatewayPrincipal, tenantHeader: string | undefined): GatewayPrincipal {
  if (principal.tenantId !== null || tenantHeader === undefined || !isUuid(tenantHeader)) return principal;
  return { ...principal, tenantId: tenantHeader.toLowerCase() };
}

/** Used as an allow list. */
export function networkList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefix = ''] = cidr.split('/');
    list.addSubnet(address, Number(prefix), address.includes(':') ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** IPv4-mapped IPv6 included, as the socket reports it. */
export function addressAllowed(list: BlockList, address: string): boolean {
  if (address.startsWith('::ffff:') && address.includes('.')) {
    const v4 = address.slice(7);
    return list.check(v4, 'ipv4') || list.check(address, 'ipv6');
  }
  return list.check(address, address.includes(':') ? 'ipv6' : 'ipv4');
}
