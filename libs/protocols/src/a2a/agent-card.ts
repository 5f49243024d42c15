import { AgentCard, type AgentSkill, type SecurityRequirement } from '@a2a-js/sdk';
import { PROTECTED_RESOURCE_PATHS } from '@fed/auth';

/** Where the JSON-RPC endpoint and the card are served (document 3, "Endpoints", A2A). */
export const A2A_PATH = PROTECTED_RESOURCE_PATHS.a2a;
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
export const A2A_SCOPE = 'a2a:all';

const AGENT_NAME = 'Federation agent';
const AGENT_VERSION = '1.0.0';
const SECURITY_SCHEME = 'oidc';
const INPUT_MODES = ['text/plain', 'application/pdf', 'image/*', 'application/octet-stream'];
const OUTPUT_MODES = ['text/plain', 'application/json', 'application/octet-stream'];

export interface AgentCardSettings {
  baseUrl: string;
  /** The token issuer, whose OpenID discovery document the security scheme names. */
  issuer: string;
}

const needsScope = (): SecurityRequirement => ({ schemes: { [SECURITY_SCHEME]: { list: [A2A_SCOPE] } } });

function skill(id: string, name: string, description: string, tags: string[]): AgentSkill {
  return {
    id,
    name,
    description,
    tags,
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [needsScope()],
  };
}

/** The agent card: one JSON-RPC endpoint for both generations, streaming, no push, OIDC with `a2a:all`, two skills. */
export function agentCard(settings: AgentCardSettings): AgentCard {
  const url = `${settings.baseUrl}${A2A_PATH}`;
  return {
    name: AGENT_NAME,
    description:
      'An autonomous agent that plans, uses tools and writes files (execute_task), or answers directly from its model (direct_llm).',
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ],
    provider: undefined,
    version: AGENT_VERSION,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      [SECURITY_SCHEME]: {
        scheme: {
          $case: 'openIdConnectSecurityScheme',
          value: {
            description: 'Access tokens of the platform; A2A needs the scope a2a:all.',
            openIdConnectUrl: `${settings.issuer}/.well-known/openid-configuration`,
          },
        },
      },
    },
    securityRequirements: [needsScope()],
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills: [
      skill(
        'execute_task',
        'Execute a task',
        'Runs the agent: planning, tools and files (message metadata agentMode true, the default).',
        ['agent', 'tools', 'files'],
      ),
      skill(
        'direct_llm',
        'Ask the model directly',
        'Answers from the model without planning or tools (message metadata agentMode false).',
        ['llm', 'chat'],
      ),
    ],
    signatures: [],
  };
}

/** Whether a card request asks for the v0.3 card: `A2A-Version` absent (product decision) or 0.x. */
export function wantsLegacyCard(version: string | undefined): boolean {
  return version === undefined || version.trim() === '' || /^0\./.test(version.trim());
}

/** v1.0 proto JSON, or the v0.3 card with v1.0 `supportedInterfaces` beside its fields (readable by both clients). */
export function agentCardJson(card: AgentCard, legacy: boolean): unknown {
  const current = AgentCard.toJSON(card) as { supportedInterfaces?: unknown };
  if (!legacy) return current;
  const security = [{ [SECURITY_SCHEME]: [A2A_SCOPE] }];
  const scheme = card.securitySchemes[SECURITY_SCHEME]?.scheme;
  const legacyInterface = card.supportedInterfaces.find((entry) => entry.protocolVersion === '0.3');
  return {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    url: legacyInterface?.url,
    preferredTransport: 'JSONRPC',
    version: card.version,
    capabilities: { streaming: true, pushNotifications: false },
    securitySchemes:
      scheme?.$case === 'openIdConnectSecurityScheme'
        ? {
            [SECURITY_SCHEME]: {
              type: 'openIdConnect',
              openIdConnectUrl: scheme.value.openIdConnectUrl,
              description: scheme.value.description,
            },
          }
        : {},
    security,
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((entry) => ({
      id: entry.id,
      name: entry.name,
      description: entry.description,
      tags: entry.tags,
      security,
    })),
    supportsAuthenticatedExtendedCard: false,
    supportedInterfaces: current.supportedInterfaces,
  };
}
