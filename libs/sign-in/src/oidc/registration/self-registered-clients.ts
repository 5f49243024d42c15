import { type Counters } from '@fed/bus';
import { type Logger } from '@fed/observability';
import { throttleKey } from '../../brute-force/throttle-key';
import { type ClientEntity, type ClientRepository } from '@fed/identity/internal';
import { RegistrationError, selfRegisteredClient } from './client-metadata';
import { type MetadataDocumentFetcher, isMetadataDocumentUrl } from './metadata-document-fetcher';

export interface MetadataFetchBudget {
  /** OIDC_CLIENT_METADATA_FETCHES_PER_HOST_PER_HOUR, per origin, across instances. */
  perHostPerHour: number;
  /** OIDC_CLIENT_METADATA_FETCHES_PER_ADDRESS_PER_HOUR, per requester address, across instances. */
  perAddressPerHour: number;
  /** How long a refused document stays refused without being fetched again. */
  failureSeconds?: number;
}

const WINDOW_SECONDS = 3600;
const DEFAULT_FAILURE_SECONDS = 60;

/**
 * A metadata-document `client_id` is fetched on first use and after expiry, then stored so every instance reads
 * one row. A failed or refused document makes the client unknown, so nothing redirects to an unvouched URI.
 *
 * Anyone can name any URL, so only lookups for a request's address fetch, within shared per-address and
 * per-origin limits; a refusal is remembered for `failureSeconds`. Past a limit a stored row, even expired, is
 * still used, so hammering a real client's host cannot take that client offline.
 */
export class SelfRegisteredClients {
  private readonly failureSeconds: number;

  constructor(
    private readonly clients: ClientRepository,
    private readonly documents: MetadataDocumentFetcher,
    private readonly counters: Counters,
    private readonly budget: MetadataFetchBudget,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.failureSeconds = budget.failureSeconds ?? DEFAULT_FAILURE_SECONDS;
  }

  async find(clientId: string, requester?: string): Promise<ClientEntity | null> {
    const stored = await this.clients.find(clientId);
    if (!isMetadataDocumentUrl(clientId)) return stored;
    if (stored && stored.registration !== 'metadata_document') return stored;
    const now = this.now();
    if (requester === undefined || (stored?.metadataExpiresAt && stored.metadataExpiresAt > now)) return stored;
    const failureKey = throttleKey('registration', 'metadata-refused', clientId);
    if ((await this.counters.peek(failureKey)).count > 0) return null;
    const byAddress = await this.counters.take(
      throttleKey('registration', 'metadata-fetches-by', requester),
      this.budget.perAddressPerHour,
      WINDOW_SECONDS,
    );
    if (!byAddress.taken) {
      this.logger.warn(
        { clientId, requester, limit: this.budget.perAddressPerHour, stale: stored !== null },
        'client metadata document not fetched: its requester is over the hourly limit',
      );
      return stored;
    }
    const origin = new URL(clientId).origin;
    const taken = await this.counters.take(
      throttleKey('registration', 'metadata-fetches', origin),
      this.budget.perHostPerHour,
      WINDOW_SECONDS,
    );
    if (!taken.taken) {
      this.logger.warn(
        { clientId, origin, limit: this.budget.perHostPerHour, stale: stored !== null },
        'client metadata document not fetched: its host is over the hourly limit',
      );
      return stored;
    }
    try {
      const { metadata, expiresAt } = await this.documents.fetch(clientId, now);
      await this.clients.upsertMetadataDocumentClient(
        selfRegisteredClient(clientId, 'metadata_document', metadata, now, expiresAt),
      );
    } catch (error) {
      if (!(error instanceof RegistrationError)) throw error;
      this.logger.warn({ clientId, code: error.code, reason: error.description }, 'client metadata document refused');
      await this.counters.extend(failureKey, this.failureSeconds);
      return null;
    }
    return this.clients.find(clientId);
  }
}
