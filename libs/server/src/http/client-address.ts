import { type IncomingMessage } from 'node:http';

/**
 * The caller's address: the TCP peer, or with `trustProxyHops` proxies in front, the entry of
 * `X-Forwarded-For` that the outermost trusted proxy appended (that many from the right). Entries
 * further left come from the caller and are never trusted. Express's `trust proxy` setting (a hop
 * count) answers the same for `req.ip`.
 */
export function clientAddress(req: IncomingMessage, trustProxyHops: number): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (trustProxyHops <= 0) return peer;
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  // [..., client as seen by the first proxy, ..., as seen by the last] + the peer (the last proxy).
  const chain = [...forwarded, peer];
  return chain[Math.max(0, chain.length - 1 - trustProxyHops)] ?? peer;
}
