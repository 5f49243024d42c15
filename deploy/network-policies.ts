import { BlockList, isIPv4 } from 'node:net';

// NetworkPolicy semantics (networking.k8s.io/v1), enough to answer "may this pod open a connection
// to that one on this port" for rendered manifests: deploy.spec.ts asks it for every path the
// platform needs and for paths it must not have.

type Labels = Record<string, string>;

export interface LabelSelector {
  matchLabels?: Labels;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

export interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}

export interface PolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}

export interface PolicyRule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: PolicyPort[];
}

export interface NetworkPolicy {
  metadata: { name: string; namespace?: string };
  spec: {
    podSelector: LabelSelector;
    policyTypes?: ('Ingress' | 'Egress')[];
    ingress?: PolicyRule[];
    egress?: PolicyRule[];
  };
}

/** A pod (its namespace, labels and named container ports), or an address outside the cluster. */
export type Endpoint =
  | { kind: 'pod'; name: string; namespace: string; labels: Labels; ports: { name?: string; containerPort: number }[] }
  | { kind: 'address'; ip: string };

export function selectorMatches(selector: LabelSelector | undefined, labels: Labels): boolean {
  if (!selector) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    switch (operator) {
      case 'In':
        return key in labels && values.includes(labels[key]);
      case 'NotIn':
        return !(key in labels) || !values.includes(labels[key]);
      case 'Exists':
        return key in labels;
      case 'DoesNotExist':
        return !(key in labels);
    }
  });
  return byLabels && byExpressions;
}

/** The namespace's labels as the API server sets them (`kubernetes.io/metadata.name`). */
const namespaceLabels = (namespace: string): Labels => ({ 'kubernetes.io/metadata.name': namespace });

function ipBlockMatches(block: NonNullable<PolicyPeer['ipBlock']>, ip: string): boolean {
  if (!isIPv4(ip)) return false;
  const inBlock = (cidr: string) => {
    const [address, prefix] = cidr.split('/');
    if (!isIPv4(address)) return false;
    const list = new BlockList();
    list.addSubnet(address, Number(prefix), 'ipv4');
    return list.check(ip, 'ipv4');
  };
  return inBlock(block.cidr) && !(block.except ?? []).some(inBlock);
}

function peerMatches(peer: PolicyPeer, endpoint: Endpoint, policyNamespace: string): boolean {
  if (peer.ipBlock) return endpoint.kind === 'address' && ipBlockMatches(peer.ipBlock, endpoint.ip);
  if (endpoint.kind !== 'pod') return false;
  const inNamespace = peer.namespaceSelector
    ? selectorMatches(peer.namespaceSelector, namespaceLabels(endpoint.namespace))
    : endpoint.namespace === policyNamespace;
  return inNamespace && (peer.podSelector ? selectorMatches(peer.podSelector, endpoint.labels) : true);
}

/** A named port is looked up in the destination pod's container ports. */
function portMatches(ports: PolicyPort[] | undefined, destination: Endpoint, port: number, protocol: string): boolean {
  if (!ports || ports.length === 0) return true;
  return ports.some((p) => {
    if ((p.protocol ?? 'TCP') !== protocol) return false;
    if (p.port === undefined) return true;
    if (typeof p.port === 'string') {
      return destination.kind === 'pod' && destination.ports.some((c) => c.name === p.port && c.containerPort === port);
    }
    return p.endPort === undefined ? p.port === port : port >= p.port && port <= p.endPort;
  });
}

const policyTypes = (policy: NetworkPolicy) =>
  policy.spec.policyTypes ?? (policy.spec.egress ? ['Ingress', 'Egress'] : ['Ingress']);

export class NetworkPolicies {
  constructor(
    readonly policies: readonly NetworkPolicy[],
    readonly namespace: string,
  ) {}

  /** The policies of the namespace that select this pod for a direction. */
  selecting(endpoint: Endpoint, direction: 'Ingress' | 'Egress'): NetworkPolicy[] {
    if (endpoint.kind !== 'pod' || endpoint.namespace !== this.namespace) return [];
    return this.policies.filter(
      (p) => policyTypes(p).includes(direction) && selectorMatches(p.spec.podSelector, endpoint.labels),
    );
  }

  /**
   * Whether a connection from `source` to `destination` on `port` is allowed by both ends' policies: a
   * pod of the namespace that no policy selects for a direction is open in that direction.
   */
  allows(source: Endpoint, destination: Endpoint, port: number, protocol = 'TCP'): boolean {
    const egress = this.selecting(source, 'Egress');
    const ingress = this.selecting(destination, 'Ingress');
    const egressAllowed =
      egress.length === 0 ||
      egress.some((policy) =>
        (policy.spec.egress ?? []).some(
          (rule) => this.peersMatch(rule.to, destination) && portMatches(rule.ports, destination, port, protocol),
        ),
      );
    const ingressAllowed =
      ingress.length === 0 ||
      ingress.some((policy) =>
        (policy.spec.ingress ?? []).some(
          (rule) => this.peersMatch(rule.from, source) && portMatches(rule.ports, destination, port, protocol),
        ),
      );
    return egressAllowed && ingressAllowed;
  }

  /** No peers: every source or destination. */
  private peersMatch(peers: PolicyPeer[] | undefined, endpoint: Endpoint): boolean {
    return !peers || peers.length === 0 || peers.some((peer) => peerMatches(peer, endpoint, this.namespace));
  }
}
