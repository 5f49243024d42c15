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
