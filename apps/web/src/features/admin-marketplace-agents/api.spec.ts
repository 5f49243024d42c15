import { ApiRequestError } from '../../lib/api';
import { agentFieldOf, numberInput } from './api';

// The refusals of /api/v1/admin/marketplace-agents (libs/agent: agent.rules.ts' AGENT_RULE_MESSAGES, the catalog's
// name and instructions rules, the service's 409), each mapped to the form field it is about.
const refusal = (status: number, message: string, code = 'invalid_parameter') =>
  new ApiRequestError(status, code, message);

describe('agentFieldOf', () => {
  it.each([
    ['agentId', 'an agent id is 1-64 characters of A-Z, a-z, 0-9, _ and -'],
    ['name', 'a name is 1-200 characters on one line, without control characters'],
    ['instructions', 'instructions are 1-20000 characters, without NUL or unpaired surrogates'],
    ['model', 'a model is 1-200 characters on one line'],
    ['temperature', 'a temperature is a number from 0 to 2'],
    ['maxOutputTokens', 'max output tokens is an integer from 1 to 1,000,000'],
    ['tenantId', 'a tenant is named by its id (a UUID)'],
    ['enabled', 'enabled must be true or false'],
  ])('puts a 400 about %s at that field', (field, message) => {
    expect(agentFieldOf(refusal(400, message))).toBe(field);
  });

  it('puts a 409 (an id taken, by a live agent or a deleted one) at the agent id', () => {
    const taken = refusal(409, 'the id support is taken, by an agent or a deleted one', 'conflict');
    expect(agentFieldOf(taken)).toBe('agentId');
  });

  it('puts no other answer at a field (the form shows it above its buttons)', () => {
    expect(agentFieldOf(refusal(400, 'give at least one field to change', 'invalid_request'))).toBeUndefined();
    expect(agentFieldOf(refusal(403, 'a name is wrong', 'insufficient_scope'))).toBeUndefined();
    expect(agentFieldOf(new Error('offline'))).toBeUndefined();
  });
});

describe('numberInput', () => {
  it('sends what reads as a number as one, a decimal comma included, and any other text as typed', () => {
    expect(numberInput('0.2')).toBe(0.2);
    expect(numberInput(' 0,5 ')).toBe(0.5);
    expect(numberInput('300')).toBe(300);
    expect(numberInput('warm')).toBe('warm');
    expect(numberInput('1,000,000')).toBe('1,000,000');
  });
});
