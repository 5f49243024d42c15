import {
  type AgentFields,
  AgentsError,
  type MarketplaceAgentEntity,
  type MarketplaceAgentsAdminService,
  marketplaceAgentEntities,
  marketplaceAgentsAdminServiceFor,
} from '@fed/agent';
import { type Command } from 'commander';
import { readInstructionsFile } from './catalog.command';
import { withEntities } from './database';

function withAgents<T>(work: (agents: MarketplaceAgentsAdminService) => Promise<T>): Promise<T> {
  return withEntities(marketplaceAgentEntities, (dataSource) => work(marketplaceAgentsAdminServiceFor(dataSource)));
}

interface AgentOptions {
  id?: string;
  name?: string;
  instructions?: string;
  instructionsFile?: string;
  model?: string;
  temperature?: string;
  maxOutputTokens?: string;
  tenant?: string;
  anyTenant?: boolean;
  disabled?: boolean;
  reset?: string;
}

const RESETTABLE = ['model', 'temperature', 'maxOutputTokens'] as const;

/** A number option as typed: the whole text must be the number (commander hands over strings). */
function numberOption(text: string | undefined, code: 'invalid_temperature' | 'invalid_max_output_tokens') {
  if (text === undefined) return undefined;
  const value = /^\s*[0-9]+(\.[0-9]+)?\s*$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(value)) throw new AgentsError(code, `${JSON.stringify(text)} is not a number`);
  return value;
}

async function fieldsOf(options: AgentOptions): Promise<AgentFields> {
  if (options.instructions !== undefined && options.instructionsFile !== undefined) {
    throw new AgentsError('invalid_instructions', 'give --instructions or --instructions-file, not both');
  }
  if (options.tenant !== undefined && options.anyTenant) {
    throw new AgentsError('invalid_tenant', 'give --tenant or --any-tenant, not both');
  }
  const fields: AgentFields = {};
  if (options.name !== undefined) fields.name = options.name;
  if (options.instructionsFile !== undefined)
    fields.instructions = await readInstructionsFile(options.instructionsFile);
  else if (options.instructions !== undefined) fields.instructions = options.instructions;
  const model: NonNullable<AgentFields['model']> = {};
  for (const reset of (options.reset ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)) {
    if (!(RESETTABLE as readonly string[]).includes(reset)) {
      throw new AgentsError('invalid_model', `--reset takes ${RESETTABLE.join(', ')}; not ${JSON.stringify(reset)}`);
    }
    model[reset as (typeof RESETTABLE)[number]] = null;
  }
  if (options.model !== undefined) model.model = options.model;
  const temperature = numberOption(options.temperature, 'invalid_temperature');
  if (temperature !== undefined) model.temperature = temperature;
  const maxOutputTokens = numberOption(options.maxOutputTokens, 'invalid_max_output_tokens');
  if (maxOutputTokens !== undefined) model.maxOutputTokens = maxOutputTokens;
  if (Object.keys(model).length > 0) fields.model = model;
  if (options.tenant !== undefined) fields.tenantId = options.tenant;
  if (options.anyTenant) fields.tenantId = null;
  return fields;
}

function describe(agent: MarketplaceAgentEntity): string {
  const { model, temperature, maxOutputTokens } = agent.modelConfig;
  return [
    agent.id,
    agent.enabled ? 'enabled' : 'disabled',
    JSON.stringify(agent.name),
    `model=${model ?? '(default)'}`,
    ...(temperature !== undefined ? [`temperature=${temperature}`] : []),
    ...(maxOutputTokens !== undefined ? [`maxOutputTokens=${maxOutputTokens}`] : []),
    `tenant=${agent.tenantId ?? '(any)'}`,
    `instructions=${agent.instructions.length} chars`,
    `updated=${agent.updatedAt.toISOString()}`,
  ].join('  ');
}

function modelOptions(command: Command): Command {
  return command
    .option('--instructions <text>', "the agent's system prompt (at most 20,000 characters)")
    .option('--instructions-file <path>', 'read the instructions from a UTF-8 file')
    .option('--model <name>', 'a model or alias of the model gateway (default: AGENT_MODEL)')
    .option('--temperature <number>', "sampling temperature, 0 to 2 (default: the model provider's)")
    .option('--max-output-tokens <n>', "tokens of one model answer at most (default: the provider's)")
    .option('--tenant <id>', "only this tenant's service accounts may use the agent");
}

/** `platformctl agents`: Marketplace agents (the admin panel's stand-in); read per request: no cache to tell. */
export function registerAgents(program: Command): void {
  const agents = program
    .command('agents')
    .description("agents of the Marketplace edition (the chat request's agentId or X-Agent-Id)");

  modelOptions(
    agents
      .command('create')
      .description('create an agent')
      .requiredOption('--name <name>', 'shown in lists, and what the agent calls itself (1-200 characters)')
      .option('--id <id>', 'the agentId: 1-64 characters of A-Z, a-z, 0-9, _ and - (default: a UUID)')
      .option('--disabled', 'create it disabled (it takes no turns until enabled)'),
  ).action(async (options: AgentOptions) => {
    if (options.instructions === undefined && options.instructionsFile === undefined) {
      throw new AgentsError('invalid_instructions', 'give --instructions or --instructions-file');
    }
    const fields = await fieldsOf(options);
    const agent = await withAgents((service) =>
      service.create({
        ...fields,
        ...(options.id !== undefined ? { id: options.id } : {}),
        enabled: !options.disabled,
      }),
    );
    process.stdout.write(`created agent ${agent.id}\n`);
  });

  agents
    .command('list')
    .description('list every agent, disabled ones included')
    .action(async () => {
      const all = await withAgents((service) => service.list());
      if (all.length === 0) process.stdout.write('no agents\n');
      for (const agent of all) process.stdout.write(`${describe(agent)}\n`);
    });

  agents
    .command('show <id>')
    .description('one agent as JSON, instructions included')
    .action(async (id: string) => {
      const agent = await withAgents((service) => service.show(id));
      process.stdout.write(`${JSON.stringify(agent, null, 2)}\n`);
    });

  modelOptions(
    agents
      .command('update <id>')
      .description("change an agent's name, instructions, model configuration or tenant")
      .option('--name <name>', 'shown in lists, and what the agent calls itself (1-200 characters)')
      .option('--any-tenant', "every tenant's service accounts may use the agent")
      .option('--reset <fields>', `back to the default: any of ${RESETTABLE.join(', ')} (comma-separated)`),
  ).action(async (id: string, options: AgentOptions) => {
    const fields = await fieldsOf(options);
    await withAgents((service) => service.update(id, fields));
    process.stdout.write(`updated agent ${id}\n`);
  });

  for (const [verb, enabled, effect] of [
    ['disable', false, 'new turns are refused (400 agent_disabled); its conversations stay readable'],
    ['enable', true, 'it takes turns again'],
  ] as const) {
    agents
      .command(`${verb} <id>`)
      .description(`${verb} an agent: ${effect}`)
      .action(async (id: string) => {
        await withAgents((service) => service.update(id, { enabled }));
        process.stdout.write(`${verb}d agent ${id}\n`);
      });
  }

  agents
    .command('delete <id>')
    .description(
      'delete an agent: no request can name it any more; its conversations stay stored, and its id is not given again (disable keeps them readable)',
    )
    .action(async (id: string) => {
      await withAgents((service) => service.delete(id));
      process.stdout.write(`deleted agent ${id}\n`);
    });
}
