import { type ValidateFunction } from 'ajv';
import type { ToolCall, ToolDefinition } from '../model/chat-wire';
import { type AgentTool, type ToolLabel, quoted } from './agent-tool';
import { toolSchemaValidator } from './tool-schema-validators';

export type PreparedCall =
  { ok: true; tool: AgentTool; args: Record<string, unknown> } | { ok: false; error: string; label: ToolLabel };

interface Registered {
  tool: AgentTool;
  validate: ValidateFunction;
}

export class ToolBox {
  private readonly tools = new Map<string, Registered>();

  // `never`: each tool takes its own argument type, checked against its schema before it runs.
  constructor(tools: readonly AgentTool<never>[]) {
    for (const tool of tools) {
      if (this.tools.has(tool.name)) throw new Error(`two agent tools are named ${tool.name}`);
      this.tools.set(tool.name, { tool: tool as unknown as AgentTool, validate: toolSchemaValidator(tool.parameters) });
    }
  }

  definitions(): ToolDefinition[] {
    return [...this.tools.values()].map(({ tool }) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }

  /** The call's tool and parsed arguments, or why it cannot run (told to the model, shown as a failed task). */
  prepare(call: ToolCall): PreparedCall {
    const name = call.function.name;
    const registered = this.tools.get(name);
    if (!registered) {
      return {
        ok: false,
        error: `There is no tool named "${name.slice(0, 64)}". Use one of: ${[...this.tools.keys()].join(', ')}.`,
        label: { title: 'Unknown tool', description: `The agent asked for ${quoted(name, 64)}, which does not exist` },
      };
    }
    let args: unknown;
    try {
      args = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
    } catch {
      return {
        ok: false,
        error: 'The arguments are not valid JSON.',
        label: { title: `Could not use ${name}`, description: 'Its arguments were not valid JSON' },
      };
    }
    if (!registered.validate(args)) {
      const problems = (registered.validate.errors ?? [])
        .slice(0, 5)
        .map((error) => `${error.instancePath || '(arguments)'} ${error.message ?? 'is invalid'}`)
        .join('; ');
      return {
        ok: false,
        error: `The arguments do not match the tool's schema: ${problems}.`,
        label: { title: `Could not use ${name}`, description: `Its arguments were not valid: ${problems}` },
      };
    }
    return { ok: true, tool: registered.tool, args: args as Record<string, unknown> };
  }
}
