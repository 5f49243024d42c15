import { type IncomingMessage } from 'node:http';

/**
 * The whole request body, or undefined as soon as it is known to be over `limitBytes` (declared or
 * streamed); the rest is then drained unread, and the caller answers 413 and closes the connection.
 */
export async function readLimitedBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > limitBytes) {
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) {
      req.resume();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** Whether parsed JSON nests deeper than `limit`, walked without recursion (hostile input cannot blow the stack). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  while (pending.length > 0) {
    const { node, depth } = pending.pop() as { node: unknown; depth: number };
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) {
      if (typeof child === 'object' && child !== null) pending.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}
