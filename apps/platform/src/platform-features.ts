/* eslint-disable @nx/enforce-module-boundaries -- platform runs the deployables' root modules in one process by design (docs/architecture.md); everywhere else importing an app stays forbidden. */
import { AdminServiceModule } from '@fed/apps/admin-service';
import { AgentProtocolsModule } from '@fed/apps/agent-protocols';
import { AgentRuntimeModule } from '@fed/apps/agent-runtime';
import { AuthServiceModule } from '@fed/apps/auth-service';
import { ChatServiceModule } from '@fed/apps/chat-service';
import { LlmGatewayModule } from '@fed/apps/llm-gateway';
import { DemoRealmModule } from './demo-realm';
import { SignalRelayModule } from './signal-relay.module';
import { WebAppModule } from './web-app';

// The same root modules the six deployables run, in one process, the demo realm of a first start, and
// the relay that lets platformctl signal the in-process bus.
export const platformFeatures = [
  AuthServiceModule,
  ChatServiceModule,
  AgentRuntimeModule,
  AdminServiceModule,
  AgentProtocolsModule,
  LlmGatewayModule,
  DemoRealmModule,
  SignalRelayModule,
  WebAppModule,
];

// For tests that run two of the deployables side by side, as separate services.
export {
  AdminServiceModule,
  AgentProtocolsModule,
  AgentRuntimeModule,
  AuthServiceModule,
  ChatServiceModule,
  LlmGatewayModule,
};
