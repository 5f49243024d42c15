import { type PublicSigningJwk } from './signing-key.entity';
import { type SigningKeysService } from './signing-keys.service';

// The JWKS is unauthenticated: a short-lived copy keeps a flood of reads off the database, and a rotation
// still shows well inside its publication lead.
const CACHE_MS = 5000;

export class PublishedJwks {
  private cached?: { at: number; document: Promise<{ keys: PublicSigningJwk[] }> };

  constructor(private readonly keys: SigningKeysService) {}

  current(): Promise<{ keys: PublicSigningJwk[] }> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > CACHE_MS) {
      const document = this.keys.publishedJwks();
      this.cached = { at: now, document };
      document.catch(() => (this.cached = undefined));
    }
    return this.cached.document;
  }

  /** The next read goes to the database (a key was revoked). */
  invalidate(): void {
    this.cached = undefined;
  }
}
