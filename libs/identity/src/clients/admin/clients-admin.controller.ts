import { AuditAction, AuditDetails } from '@fed/audit';
import { Scopes, SaasOnly } from '@fed/auth';
import { numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { Body, Controller, Delete, Get, Header, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ClientsService } from '../clients.service';
import {
  ClientIdParams,
  type ClientListResponse,
  type ClientResponse,
  CreateClientBody,
  type CreatedClientResponse,
  type DeletedClientResponse,
  ListClientsQuery,
  type RotatedSecretResponse,
  UpdateClientBody,
  toClientChanges,
  toClientListResponse,
  toClientResponse,
  toRegistration,
} from './clients-admin.dto';

/**
 * The platform operator's clients (docs/client-registration.md, "The clients API"): the same ClientsService
 * methods as `platformctl clients`. Every tenant's clients, so `platform:manage` only.
 */
@SaasOnly()
@Controller('api/v1/admin/clients')
@Scopes('platform:manage')
export class ClientsAdminController {
  constructor(private readonly clients: ClientsService) {}

  @Get()
  async list(@Query() query: ListClientsQuery): Promise<ClientListResponse> {
    const page = toNumberedPageParams(query);
    const { clients, total } = await this.clients.page({ search: query.search, tenantName: query.tenant }, page);
    return toClientListResponse(clients, this.clients.protectedClientIds, numberedPageEnvelope(page, total));
  }

  @Get(':clientId')
  async get(@Param() { clientId }: ClientIdParams): Promise<ClientResponse> {
    return toClientResponse(await this.clients.get(clientId), this.clients.protectedClientIds);
  }

  @Post()
  @Header('Cache-Control', 'no-store')
  @AuditAction('clients/create', 'create')
  async create(@Body() body: CreateClientBody, @AuditDetails() audit: AuditDetails): Promise<CreatedClientResponse> {
    audit.add({
      clientId: body.clientId,
      name: body.name,
      grantTypes: body.grantTypes,
      scopes: body.scopes ?? [],
      tenant: body.tenant ?? null,
      operator: body.operator === true,
      public: body.public === true,
    });
    const { client, clientSecret } = await this.clients.create(toRegistration(body));
    return {
      ...toClientResponse(client, this.clients.protectedClientIds),
      ...(clientSecret === undefined ? {} : { clientSecret }),
    };
  }

  @Patch(':clientId')
  @AuditAction('clients/update', 'update')
  async update(
    @Param() { clientId }: ClientIdParams,
    @Body() body: UpdateClientBody,
    @AuditDetails() audit: AuditDetails,
  ): Promise<ClientResponse> {
    const changes = toClientChanges(body);
    const changed = Object.entries(changes).filter(
      ([field, value]) => value !== undefined && field !== 'allowManagementScopes',
    );
    // Stopping or starting a client alone is named so in the log.
    if (changed.length === 1 && changes.enabled !== undefined)
      audit.name({ action: changes.enabled ? 'enable' : 'disable' });
    audit.add({ changed: changed.map(([field]) => field), ...Object.fromEntries(changed) });
    return toClientResponse(await this.clients.update(clientId, changes), this.clients.protectedClientIds);
  }

  @Post(':clientId/rotate-secret')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @AuditAction('clients/rotate-secret', 'rotate_secret')
  async rotateSecret(@Param() { clientId }: ClientIdParams): Promise<RotatedSecretResponse> {
    const { client, clientSecret } = await this.clients.rotateSecret(clientId);
    return { ...toClientResponse(client, this.clients.protectedClientIds), clientSecret };
  }

  @Delete(':clientId')
  @AuditAction('clients/delete', 'delete')
  async delete(@Param() { clientId }: ClientIdParams): Promise<DeletedClientResponse> {
    await this.clients.delete(clientId);
    return { clientId, deleted: true };
  }
}
