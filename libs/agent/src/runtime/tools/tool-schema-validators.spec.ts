import { toolSchemaValidator } from './tool-schema-validators';

describe('tool schema validators', () => {
  it('compiles a schema once: the same validator for the same object and for an equal copy', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const validate = toolSchemaValidator(schema);
    expect(toolSchemaValidator(schema)).toBe(validate);
    expect(toolSchemaValidator(JSON.parse(JSON.stringify(schema)) as object)).toBe(validate);
    expect(validate({ city: 'Lyon' })).toBe(true);
    expect(validate({})).toBe(false);
    expect(validate.errors?.[0]?.message).toMatch(/city/);
  });

  it('is not fooled by a schema changed after it was compiled', () => {
    const schema: Record<string, unknown> = { type: 'object', properties: { n: { type: 'number' } } };
    const first = toolSchemaValidator(schema);
    expect(first({ n: 'x' })).toBe(false);
    // An equal text later is the same schema; the first object stays compiled as it was.
    schema.properties = { n: { type: 'string' } };
    expect(first({ n: 'x' })).toBe(false);
    expect(toolSchemaValidator({ type: 'object', properties: { n: { type: 'string' } } })({ n: 'x' })).toBe(true);
  });

  it('throws for a schema that does not compile, every time', () => {
    const bad = { type: 'object', properties: { text: { type: 'text' } } };
    expect(() => toolSchemaValidator(bad)).toThrow();
    expect(() => toolSchemaValidator(bad)).toThrow();
    expect(() => toolSchemaValidator({ ...bad })).toThrow();
  });

  it('keeps two schemas of one $id apart, and lets neither $ref the other', () => {
    const one = toolSchemaValidator({ $id: 'urn:schema:same', type: 'string' });
    const other = toolSchemaValidator({ $id: 'urn:schema:same', type: 'number' });
    expect([one('a'), other('a'), other(1)]).toEqual([true, false, true]);
    toolSchemaValidator({ $id: 'urn:schema:address', type: 'object' });
    expect(() => toolSchemaValidator({ type: 'object', properties: { a: { $ref: 'urn:schema:address' } } })).toThrow();
  });
});
