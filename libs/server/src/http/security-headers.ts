import { type IncomingMessage, type ServerResponse } from 'node:http';

// API answers are never pages to frame or sniff; pages (login, consent) add their own CSP.
export function securityHeaders() {
  return (_req: IncomingMessage, res: ServerResponse, next: () => void) => {
    setSecurityHeaders(res);
    next();
  };
}

export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-site');
}
