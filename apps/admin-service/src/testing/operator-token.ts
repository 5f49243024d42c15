import { ClientsService } from '@fed/identity';
import { type RunningService } from '@fed/server';

let operatorClients = 0;

/** A Client Credentials token of the operator's own tenantless client (`clients create --operator`). */
export async function operatorToken(auth: RunningService, scopes: string[]): Promise<string> {
  const clientId = `platform-operator-${++operatorClients}`;
  const { clientSecret } = await auth.nest.get(ClientsService).create({
    clientId,
    name: 'Platform operator',
    grantTypes: ['client_credentials'],
    scopes,
    operator: true,
  });
  const res = await fetch(`${auth.url}/federation/auth/v1/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  if (res.status !== 200) throw new Error(`operator token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
