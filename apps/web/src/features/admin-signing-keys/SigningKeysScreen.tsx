import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { ApiRequestError, errorText } from '../../lib/api';
import { useAuth } from '../../lib/auth/auth-context';
import { useFormats } from '../../lib/i18n/format';
import { useMessages } from '../../lib/i18n/messages';
import { ConfirmDialog } from '../../lib/ui/ConfirmDialog';
import { SIGNING_KEYS_KEY, type SigningKey, listSigningKeys, revokeSigningKey, rotateSigningKey } from './api';
import { signingKeysText } from './messages';

type Texts = ReturnType<typeof useMessages<typeof signingKeysText.en>>;
type Pending = { kind: 'rotate'; now: boolean } | { kind: 'revoke'; key: SigningKey };

function stateLabel(t: Texts, state: SigningKey['state']): string {
  return {
    next: t.stateNext,
    active: t.stateActive,
    retired: t.stateRetired,
    expired: t.stateExpired,
    revoked: t.stateRevoked,
  }[state];
}

/** The `kid` in a JWT's header, if it has one. */
function kidOf(token: string): string | undefined {
  try {
    const header = token.split('.')[0]!.replace(/-/g, '+').replace(/_/g, '/');
    const kid = (JSON.parse(atob(header)) as { kid?: unknown }).kid;
    return typeof kid === 'string' ? kid : undefined;
  } catch {
    return undefined;
  }
}

/** The list with the keys of an answer in place of their old rows (new ones at the end). */
function withKeys(list: SigningKey[] | undefined, changed: SigningKey[]): SigningKey[] | undefined {
  if (!list) return list;
  const byKid = new Map(changed.map((key) => [key.kid, key]));
  return [
    ...list.map((key) => byKid.get(key.kid) ?? key),
    ...changed.filter((key) => !list.some((old) => old.kid === key.kid)),
  ];
}

/** The OpenID provider's signing keys (platform:manage): list, rotate, revoke. */
export function SigningKeysScreen() {
  const auth = useAuth();
  const t = useMessages(signingKeysText);
  const formats = useFormats();
  const queries = useQueryClient();
  const id = useId();
  const [pending, setPending] = useState<Pending | undefined>();
  const [done, setDone] = useState('');
  const title = useRef<HTMLHeadingElement>(null);
  // The key just revoked signed this page's own access token, which the API now refuses (401 invalid_token).
  const [ownTokenRevoked, setOwnTokenRevoked] = useState(false);
  const keys = useQuery({
    queryKey: SIGNING_KEYS_KEY,
    queryFn: async () => listSigningKeys(await auth.accessToken()),
    enabled: !ownTokenRevoked,
  });
  const act = useMutation({
    mutationFn: async (action: Pending) => {
      const token = await auth.accessToken();
      if (action.kind === 'rotate') return { changed: [await rotateSigningKey(token, action.now ? 0 : undefined)] };
      const { revoked: key, replacement } = await revokeSigningKey(token, action.key.kid);
      return { changed: replacement ? [key, replacement] : [key], own: kidOf(token) === key.kid };
    },
    onSuccess: ({ changed, own }, action) => {
      const kid = changed[0]!.kid;
      setDone(action.kind === 'rotate' ? t.rotated(kid) : t.revoked(kid));
      setPending(undefined);
      revoked.current = action.kind === 'revoke';
      // The answer is the new state of the keys it names: shown at once, also when no further call can be made.
      queries.setQueryData<SigningKey[]>(SIGNING_KEYS_KEY, (list) => withKeys(list, changed));
      if (own) setOwnTokenRevoked(true);
      else void queries.invalidateQueries({ queryKey: SIGNING_KEYS_KEY });
    },
  });
  // Tokens live in memory only: a new page signs in again (through the provider's session) and comes back here.
  const signInAgain = () => window.location.reload();
  const tokenRefused = keys.error instanceof ApiRequestError && keys.error.status === 401;
  // A revoked key's row keeps no revoke button (the one the dialog gave the focus back to): once the refreshed list
  // is on the page, the focus goes to the heading rather than nowhere.
  const revoked = useRef(false);
  useEffect(() => {
    if (!revoked.current) return;
    const active = document.activeElement;
    if (!active || active === document.body || !active.isConnected) {
      revoked.current = false;
      title.current?.focus();
    }
  }, [keys.data]);
  const date = (iso: string | null) => (iso ? <time dateTime={iso}>{formats.dateTime(iso)}</time> : '');

  return (
    <section className="console-screen" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} tabIndex={-1} ref={title}>
        {t.signingKeys}
      </h2>
      <p role="status" className="console-status">
        {done}
      </p>
      <div className="console-toolbar">
        <button type="button" data-action="rotate" onClick={() => setPending({ kind: 'rotate', now: false })}>
          {t.rotate}
        </button>
        <button type="button" data-action="rotate-now" onClick={() => setPending({ kind: 'rotate', now: true })}>
          {t.rotateNow}
        </button>
      </div>
      {ownTokenRevoked && (
        <div role="alert" className="console-notice">
          <p>{t.ownTokenRevoked}</p>
          <button type="button" data-action="sign-in-again" onClick={signInAgain}>
            {t.signInAgain}
          </button>
        </div>
      )}
      {keys.error && !ownTokenRevoked && (
        <div role="alert">
          <p>{errorText(keys.error)}</p>
          {tokenRefused && (
            <button type="button" data-action="sign-in-again" onClick={signInAgain}>
              {t.signInAgain}
            </button>
          )}
        </div>
      )}
      {keys.data && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label={t.signingKeys}>
          <table className="console-table">
            <thead>
              <tr>
                <th scope="col">{t.kid}</th>
                <th scope="col">{t.algorithm}</th>
                <th scope="col">{t.state}</th>
                <th scope="col">{t.created}</th>
                <th scope="col">{t.activates}</th>
                <th scope="col">{t.retires}</th>
                <th scope="col">{t.expires}</th>
                <th scope="col">{t.revokedAt}</th>
                <th scope="col">{t.actions}</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => (
                <tr key={key.kid} data-kid={key.kid} data-state={key.state}>
                  <th scope="row">
                    <code>{key.kid}</code>
                  </th>
                  <td>{key.algorithm}</td>
                  <td>{stateLabel(t, key.state)}</td>
                  <td>{date(key.createdAt)}</td>
                  <td>{date(key.activatesAt)}</td>
                  <td>{date(key.retiredAt)}</td>
                  <td>{date(key.expiresAt)}</td>
                  <td>{date(key.revokedAt)}</td>
                  <td>
                    {key.state !== 'revoked' && key.state !== 'expired' && (
                      <button
                        type="button"
                        data-action="revoke"
                        className="destructive"
                        aria-label={t.revokeKey(key.kid)}
                        onClick={() => setPending({ kind: 'revoke', key })}
                      >
                        {t.revoke}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={pending !== undefined}
        title={pending?.kind === 'revoke' ? t.revoke : pending?.now ? t.rotateNow : t.rotate}
        confirmLabel={pending?.kind === 'revoke' ? t.revoke : pending?.now ? t.rotateNow : t.rotate}
        cancelLabel={t.cancel}
        destructive={pending?.kind === 'revoke'}
        busy={act.isPending}
        onConfirm={() => pending && act.mutate(pending)}
        onCancel={() => {
          setPending(undefined);
          act.reset();
        }}
      >
        {pending && (
          <p>
            {pending.kind === 'revoke'
              ? t.confirmRevoke(pending.key.kid, pending.key.state === 'active')
              : pending.now
                ? t.confirmRotateNow
                : t.confirmRotate}
          </p>
        )}
        {act.error && <p role="alert">{errorText(act.error)}</p>}
      </ConfirmDialog>
    </section>
  );
}
