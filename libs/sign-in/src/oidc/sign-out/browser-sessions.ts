import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type Provider from 'oidc-provider';
import { RefreshTokenRepository } from '../refresh-tokens/refresh-token.repository';
import { TokenRevocations } from '../revocation/token-revocations';
import { OIDC_PROVIDER } from '../oidc.tokens';

export interface BrowserSession {
  /** The session's `sid`. */
  uid: string;
  accountId: string;
  /** Ends the session and every refresh-token family issued to it. */
  end(): Promise<void>;
}

/** Ending a session revokes its refresh-token families, so the next authorization asks for a login. */
@Injectable()
export class BrowserSessions {
  constructor(
    @Inject(OIDC_PROVIDER) private readonly provider: Provider,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly revocations: TokenRevocations,
  ) {}

  /**
   * Before a login interaction finishes as `accountId`: a browser signed in as another account is signed out of it
   * first (its session ended as sign-out ends it), and the interaction no longer names that session. oidc-provider
   * would otherwise answer the resume with a form posted to its end-session route, which is not served (our
   * sign-out is SignOutController): one browser, one account, as a sign-out then a sign-in.
   */
  async handOver(req: Request, res: Response, interactionUid: string, accountId: string): Promise<void> {
    const current = await this.of(req, res);
    if (!current || current.accountId === accountId) return;
    // First the interaction lets go of the old account's session and grant: ending those deletes what names them.
    const interaction = await this.provider.Interaction.find(interactionUid);
    if (interaction) {
      const held = interaction as { session?: unknown; grantId?: string };
      delete held.session;
      delete held.grantId;
      await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
    }
    await current.end();
  }

  async of(req: Request, res: Response): Promise<BrowserSession | undefined> {
    const ctx = this.provider.createContext(req, res);
    const session = await this.provider.Session.get(ctx as Parameters<Provider['Session']['get']>[0]);
    const accountId = session.accountId;
    if (!accountId) return undefined;
    return {
      uid: session.uid,
      accountId,
      end: async () => {
        const families = new Set(await this.refreshTokens.familiesOfSession(session.uid, accountId));
        for (const { grantId } of Object.values(session.authorizations ?? {})) if (grantId) families.add(grantId);
        for (const familyId of families) await this.revocations.revokeFamily(familyId);
        await session.destroy();
        ctx.cookies.set(this.provider.cookieName('session'), null, { httpOnly: true, sameSite: 'lax' });
      },
    };
  }
}
