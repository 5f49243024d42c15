import { type AgentCard } from '@a2a-js/sdk';
import { AccessTokenVerifier, protectedResourceUrl } from '@fed/auth';
import { RUN_STREAM, type RunStream } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { ConversationReads, FilesService, TurnStarter } from '@fed/conversations';
import { LOGGER, type Logger, METRICS, type Metrics, OpenStreams } from '@fed/observability';
import { FAST_ROUTES, type FastRoutes, SHUTDOWN_SIGNAL } from '@fed/server';
import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProtocolTurnsModule } from '../turns';
import { A2aEndpoint } from './a2a-endpoint';
import { A2aRequestHandler } from './a2a-request-handler';
import { A2A_PATH, AGENT_CARD_PATH, agentCard } from './agent-card';

/** The one agent card of this process: served by the endpoint, returned by the request handler. */
const A2A_AGENT_CARD = Symbol('fed.a2a.AgentCard');

/** How long `tasks/cancel` waits for the runtime (or the starter's grace check) to end the turn. */
const CANCEL_WAIT_MS = 10_000;

/** A2A of document 3: the agent card and the JSON-RPC endpoint `POST /api/v1/a2a` (README.md beside it). */
@Module({
  imports: [ProtocolTurnsModule],
  providers: [
    {
      provide: A2A_AGENT_CARD,
      inject: [SERVICE_CONFIG],
      useFactory: (config: ServiceConfig) => agentCard({ baseUrl: config.http.publicUrl, issuer: config.auth.issuer }),
    },
    {
      provide: A2aRequestHandler,
      inject: [TurnStarter, RUN_STREAM, DataSource, FilesService, A2A_AGENT_CARD, SERVICE_CONFIG, LOGGER],
      useFactory: (
        starter: TurnStarter,
        runStream: RunStream,
        dataSource: DataSource,
        files: FilesService,
        card: AgentCard,
        config: ServiceConfig,
        logger: Logger,
      ) =>
        new A2aRequestHandler({
          starter,
          runStream,
          reads: new ConversationReads(dataSource),
          files,
          card,
          baseUrl: config.http.publicUrl,
          cancelWaitMs: CANCEL_WAIT_MS,
          logger,
        }),
    },
    {
      provide: A2aEndpoint,
      inject: [A2aRequestHandler, A2A_AGENT_CARD, AccessTokenVerifier, SERVICE_CONFIG, SHUTDOWN_SIGNAL, METRICS],
      useFactory: (
        handler: A2aRequestHandler,
        card: AgentCard,
        verifier: AccessTokenVerifier,
        config: ServiceConfig,
        shutdown: AbortSignal,
        metrics: Metrics,
      ) =>
        new A2aEndpoint(
          handler,
          card,
          verifier,
          {
            bodyLimitBytes: config.protocols.bodyLimitBytes,
            heartbeatMs: config.chat.heartbeatMs,
            resource: protectedResourceUrl(config.http.publicUrl, 'a2a'),
          },
          shutdown,
          new OpenStreams(metrics, 'a2a'),
        ),
    },
  ],
})
export class A2aModule implements OnModuleInit {
  constructor(
    private readonly endpoint: A2aEndpoint,
    @Inject(FAST_ROUTES) private readonly fastRoutes: FastRoutes,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  onModuleInit(): void {
    // Document 3: the Marketplace edition has no A2A (its paths are unknown there: 404).
    if (this.config.edition === 'marketplace') return;
    this.fastRoutes.add('GET', AGENT_CARD_PATH, (req, res) => this.endpoint.serveCard(req, res));
    this.fastRoutes.add('POST', A2A_PATH, (req, res) => this.endpoint.serve(req, res));
  }
}
