import 'reflect-metadata';
import { ApiError } from '@fed/contracts';
import { RequestValidationPipe } from '@fed/server';
import { CatalogError } from './catalog.errors';
import {
  IsCatalogDescription,
  IsCatalogInstructions,
  IsCatalogName,
  IsPersonaKey,
  catalogDescription,
  catalogInstructions,
  catalogName,
  personaKey,
} from './catalog.rules';

class PersonaBody {
  @IsPersonaKey()
  key!: string;

  @IsCatalogName()
  name!: string;

  @IsCatalogDescription()
  description!: string;

  @IsCatalogInstructions()
  instructions!: string;
}

const valid = { key: 'analyst', name: ' Analyst ', description: '', instructions: ' Be brief. ' };
const pipe = new RequestValidationPipe();

async function refusal(body: Record<string, unknown>): Promise<string | undefined> {
  try {
    await pipe.transform(body, { type: 'body', metatype: PersonaBody });
  } catch (error) {
    return error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
  }
  return undefined;
}

function serviceRefusal(check: () => string): string | undefined {
  try {
    check();
  } catch (error) {
    return error instanceof CatalogError ? error.message : String(error);
  }
  return undefined;
}

describe("the text rules of catalog records, as DTO decorators (the code of the service's error)", () => {
  it('accepts what the admin service accepts, trimmed the same way', async () => {
    const dto = await pipe.transform(valid, { type: 'body', metatype: PersonaBody });
    expect(dto).toEqual({
      key: personaKey(valid.key),
      name: catalogName(valid.name),
      description: catalogDescription(valid.description),
      instructions: catalogInstructions(valid.instructions),
    });
  });

  it.each([
    ['key', 'Bad Key', () => personaKey('Bad Key')],
    ['name', 'x'.repeat(201), () => catalogName('x'.repeat(201))],
    ['name', 'two\nlines', () => catalogName('two\nlines')],
    ['name', '   ', () => catalogName('   ')],
    ['description', 'nul\u0000', () => catalogDescription('nul\u0000')],
    ['instructions', '', () => catalogInstructions('')],
  ])('refuses %s %j with the message of the admin service', async (field, value, check) => {
    const message = serviceRefusal(check);
    expect(message).toBeDefined();
    expect(await refusal({ ...valid, [field]: value })).toBe(`invalid_parameter: ${message}`);
  });

  it('refuses a value that is not a string', async () => {
    expect(await refusal({ ...valid, name: 42 })).toMatch(/^invalid_parameter: a name is/);
  });
});
