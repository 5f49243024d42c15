import { type IncomingMessage } from 'node:http';
import { clientAddress } from './client-address';

const request = (peer: string, forwarded?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
  }) as unknown as IncomingMessage;

describe('clientAddress', () => {
  it('is the TCP peer when no proxy is trusted, whatever X-Forwarded-For claims', () => {
    expect(clientAddress(request('203.0.113.7', '198.51.100.1'), 0)).toBe('203.0.113.7');
  });

  it('takes the entry the trusted proxies appended, never one the caller wrote', () => {
    // The caller forged "1.1.1.1"; the ingress (the peer) appended the real address.
    expect(clientAddress(request('10.0.0.5', '1.1.1.1, 198.51.100.1'), 1)).toBe('198.51.100.1');
    expect(clientAddress(request('10.0.0.5', '1.1.1.1, 198.51.100.1, 10.0.0.9'), 2)).toBe('198.51.100.1');
  });

  it('falls back to the furthest known hop when the header is shorter than the trusted chain', () => {
    expect(clientAddress(request('10.0.0.5'), 1)).toBe('10.0.0.5');
    expect(clientAddress(request('10.0.0.5', '198.51.100.1'), 3)).toBe('198.51.100.1');
  });
});
