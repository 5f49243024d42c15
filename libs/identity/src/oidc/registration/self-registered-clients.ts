import { type Logger } from '@fed/observability';
import { type ClientEntity } from '../../clients/client.entity';
import { type ClientRepository } from '../../clients/client.repository';
import { RegistrationError } from './client-metadata';
import { type MetadataDocumentFetcher, isMetadataDocumentUrl } from './metadata-document-fetcher';
import { selfRegisteredClient } from './client-metadata';

/**
 * The clients of the OpenID provider, as ClientCache reads them: a registered row as stored; a `client_id` that
 * is a metadata document's URL resolved through its document, fetched on first use and again once its row has
 * expired, then stored (so the consent, the grants and every instance read one row). A document that cannot be
 * fetched or is refused makes the client unknown (null), with the reason logged: the authorization endpoint
 * then shows its `invalid_client` page, never redirecting to a URI nobody vouched for.
 */
export class SelfRegisteredClients {
  constructor(
    private readonly clients: ClientRepository,
    private readonly documents: MetadataDocumentFetcher,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async find(clientId: string): Promise<ClientEntity | null> {
    const stored = await this.clients.find(clientId);
    if (!isMetadataDocumentUrl(clientId)) return stored;
    if (stored && stored.registration !== 'metadata_document') return stored;
    const now = this.now();
    if (stored?.metadataExpiresAt && stored.metadataExpiresAt > now) return stored;
    try {
      const { metadata, expiresAt } = await this.documents.fetch(clientId, now);
      await this.clients.upsertMetadataDocumentClient(
        selfRegisteredClient(clientId, 'metadata_document', metadata, now, expiresAt),
      );
    } catch (error) {
      if (!(error instanceof RegistrationError)) throw error;
      this.logger.warn({ clientId, code: error.code, reason: error.description }, 'client metadata document refused');
      return null;
    }
    return this.clients.find(clientId);
  }
}
