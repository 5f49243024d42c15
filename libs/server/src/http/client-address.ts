import { type IncomingMessage } from 'node:http';

/**
 * With `trustProxyHops` proxies in front, the `X-Forwarded-For` entry that many from the right; entries
 * further left come from the caller and are never trusted. Matches Express's `trust proxy` hop count.
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
