// The admin API's OpenAPI 3.1 document, generated from the code: the Nest controllers' decorators (paths, methods,
// scopes, status codes), the request DTO classes (their TypeScript types and class-validator checks) and the
// handlers' declared return types. Read statically with the TypeScript compiler, so nothing is booted.
// `docs/openapi.json` is this output; openapi.spec.ts fails when the two differ (UPDATE_OPENAPI=1 rewrites it).
import path from 'node:path';
import ts from 'typescript';

export type JsonSchema = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  paths: Record<string, Record<string, unknown>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, unknown>;
    securitySchemes: Record<string, unknown>;
  };
}

export interface GenerateOptions {
  /** The repository's root (tsconfig.json). */
  root: string;
  /** Paths (as served, with a leading slash) that the document covers. */
  pathPrefix: string;
}

const HTTP_METHODS: Record<string, string> = {
  Get: 'get',
  Post: 'post',
  Put: 'put',
  Patch: 'patch',
  Delete: 'delete',
};

// class-validator decorators that say something a schema can say; the rest are listed by name (`x-checks`).
const NUMERIC_KEYWORDS: Record<string, string> = {
  MaxLength: 'maxLength',
  MinLength: 'minLength',
  Max: 'maximum',
  Min: 'minimum',
  ArrayMaxSize: 'maxItems',
  ArrayMinSize: 'minItems',
};
const FORMATS: Record<string, string> = {
  IsUUID: 'uuid',
  IsEmail: 'email',
  IsUrl: 'uri',
  IsISO8601: 'date-time',
  IsDateString: 'date-time',
};
const IGNORED_DECORATORS = new Set(['IsOptional', 'IsDefined', 'Type', 'Transform', 'ValidateNested', 'Checks']);

interface Route {
  method: string;
  path: string;
  operation: Record<string, unknown>;
}

export function generateOpenApi(options: GenerateOptions): OpenApiDocument {
  const configPath = path.join(options.root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, options.root);
  const sources = parsed.fileNames.filter((file) => !file.endsWith('.spec.ts') && !file.includes('/testing/'));
  const program = ts.createProgram(sources, { ...parsed.options, noEmit: true });
  const generator = new Generator(program, options.root);

  const covered = (served: string) => served === options.pathPrefix || served.startsWith(`${options.pathPrefix}/`);
  const routes: Route[] = [];
  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || !sources.includes(path.resolve(file.fileName))) continue;
    ts.forEachChild(file, function visit(node) {
      if (ts.isClassDeclaration(node) && node.name) routes.push(...generator.routesOf(node, covered));
      ts.forEachChild(node, visit);
    });
  }

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))) {
    (paths[route.path] ??= {})[route.method] = route.operation;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Admin API',
      version: '1',
      description:
        "Document 3's admin API and the platform operator's APIs (docs/admin.md, docs/security.md: who may do what). " +
        'Generated from the code by tools/openapi; do not edit.',
    },
    servers: [{ url: '{base_url}', description: 'the API host' }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(generator.schemas).sort(([a], [b]) => a.localeCompare(b))),
      responses: {
        Error: {
          description: 'The error envelope: `error.type`, `error.code` and a message safe to show',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'An access token of the OpenID provider (document 1); each operation lists the scopes of which the token needs one',
        },
      },
    },
  };
}

class Generator {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly naming = new Map<ts.Symbol, string>();
  private readonly checker: ts.TypeChecker;

  constructor(
    private readonly program: ts.Program,
    private readonly root: string,
  ) {
    this.checker = program.getTypeChecker();
    this.schemas['ErrorEnvelope'] = this.namedSchema(this.errorEnvelopeType());
  }

  routesOf(declaration: ts.ClassDeclaration, covered: (path: string) => boolean): Route[] {
    const controller = decorator(declaration, 'Controller');
    if (!controller) return [];
    const prefix = this.literalText(controller.arguments[0]) ?? '';
    const classScopes = this.scopesOf(declaration);
    const routes: Route[] = [];
    const seen = new Set<string>();
    // A controller's own handlers, then those of the classes it extends (master data's are in a base class).
    for (const member of this.membersWithBases(declaration)) {
      if (!ts.isMethodDeclaration(member) || !member.name || seen.has(member.name.getText())) continue;
      seen.add(member.name.getText());
      for (const [name, method] of Object.entries(HTTP_METHODS)) {
        const call = decorator(member, name);
        if (!call) continue;
        const sub = this.literalText(call.arguments[0]) ?? '';
        const nestPath = `/${[prefix, sub].filter(Boolean).join('/')}`.replace(/\/+/g, '/');
        if (!covered(nestPath)) continue;
        routes.push({
          method,
          path: nestPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
          operation: this.operation(declaration, member, method, nestPath, this.scopesOf(member) ?? classScopes),
        });
      }
    }
    return routes;
  }

  private membersWithBases(declaration: ts.ClassDeclaration): ts.ClassElement[] {
    const members = [...declaration.members];
    const heritage = declaration.heritageClauses?.find((c) => c.token === ts.SyntaxKind.ExtendsKeyword);
    const base = heritage?.types[0];
    if (base) {
      const symbol = this.resolve(this.checker.getSymbolAtLocation(base.expression));
      const baseDeclaration = symbol?.declarations?.find(ts.isClassDeclaration);
      if (baseDeclaration) members.push(...this.membersWithBases(baseDeclaration));
    }
    return members;
  }

  private scopesOf(node: ts.HasDecorators): string[] | undefined {
    if (decorator(node, 'Public')) return [];
    const call = decorator(node, 'Scopes');
    return call?.arguments.map((argument) => this.literalText(argument) ?? argument.getText());
  }

  private operation(
    controller: ts.ClassDeclaration,
    method: ts.MethodDeclaration,
    httpMethod: string,
    nestPath: string,
    scopes: string[] | undefined,
  ): Record<string, unknown> {
    const parameters: unknown[] = [];
    let requestBody: unknown;
    for (const parameter of method.parameters) {
      const type = this.checker.getTypeAtLocation(parameter);
      if (decorator(parameter, 'Param') || decorator(parameter, 'Query')) {
        const where = decorator(parameter, 'Param') ? 'path' : 'query';
        for (const property of this.propertiesOfDto(type)) {
          parameters.push({
            name: property.name,
            in: where,
            required: where === 'path' || property.required,
            schema: property.schema,
            ...(property.description ? { description: property.description } : {}),
          });
        }
      } else if (decorator(parameter, 'Body')) {
        requestBody = {
          required: true,
          content: { 'application/json': { schema: this.dtoSchema(type) } },
        };
      } else if (decorator(parameter, 'UploadedFile') || decorator(parameter, 'Req')) {
        // Multipart uploads are parsed by hand (busboy); their fields are described by the route's comment.
      }
    }
    // Path parameters that no DTO describes are still named.
    for (const match of nestPath.matchAll(/:([A-Za-z0-9_]+)/g)) {
      if (
        !parameters.some(
          (p) => (p as { in: string; name: string }).in === 'path' && (p as { name: string }).name === match[1],
        )
      ) {
        parameters.unshift({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
      }
    }

    const status = this.statusOf(method, httpMethod);
    const responses: Record<string, unknown> = {};
    const returned = this.returnSchema(method);
    responses[String(status)] =
      returned === undefined
        ? { description: 'no content' }
        : { description: 'success', content: { 'application/json': { schema: returned } } };
    if (parameters.length > 0 || requestBody) responses['400'] = { $ref: '#/components/responses/Error' };
    if (scopes === undefined || scopes.length > 0) {
      responses['401'] = { $ref: '#/components/responses/Error' };
      responses['403'] = { $ref: '#/components/responses/Error' };
    }
    if (nestPath.includes(':')) responses['404'] = { $ref: '#/components/responses/Error' };

    const summary = this.jsDoc(method);
    return {
      operationId: `${controller.name!.text}.${method.name.getText()}`,
      ...(summary ? { summary } : {}),
      ...(scopes === undefined
        ? { security: [{ bearer: [] }] }
        : scopes.length === 0
          ? { security: [] }
          : { security: scopes.map((scope) => ({ bearer: [scope] })), 'x-scopes': scopes }),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }

  private statusOf(method: ts.MethodDeclaration, httpMethod: string): number {
    const call = decorator(method, 'HttpCode');
    const value = call ? this.literalValue(call.arguments[0]) : undefined;
    if (typeof value === 'number') return value;
    return httpMethod === 'post' ? 201 : 200;
  }

  private returnSchema(method: ts.MethodDeclaration): JsonSchema | undefined {
    const signature = this.checker.getSignatureFromDeclaration(method);
    if (!signature) return {};
    let type = this.checker.getReturnTypeOfSignature(signature);
    const awaited = this.checker.getAwaitedType(type);
    if (awaited) type = awaited;
    if (type.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined)) return undefined;
    return this.schemaOf(type);
  }

  // A DTO class's properties as query or path parameters.
  private propertiesOfDto(
    type: ts.Type,
  ): { name: string; required: boolean; schema: JsonSchema; description?: string }[] {
    return this.checker.getPropertiesOfType(type).flatMap((property) => {
      const declaration = property.valueDeclaration;
      if (!declaration || !ts.isPropertyDeclaration(declaration)) return [];
      const propertyType = this.checker.getTypeOfSymbolAtLocation(property, declaration);
      const schema = { ...this.schemaOf(this.checker.getNonNullableType(propertyType)), ...this.checks(declaration) };
      const description = this.jsDoc(declaration);
      return [
        {
          name: property.name,
          required: !isOptional(declaration),
          schema,
          ...(description ? { description } : {}),
        },
      ];
    });
  }

  private dtoSchema(type: ts.Type): JsonSchema {
    const symbol = type.getSymbol();
    const name = symbol?.getName();
    if (!symbol || !name || !(symbol.flags & ts.SymbolFlags.Class)) return this.schemaOf(type);
    if (!this.schemas[name]) {
      this.schemas[name] = {};
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const property of this.propertiesOfDto(type)) {
        properties[property.name] = property.description
          ? { ...property.schema, description: property.description }
          : property.schema;
        if (property.required) required.push(property.name);
      }
      this.schemas[name] = {
        type: 'object',
        properties,
        ...(required.length > 0 ? { required } : {}),
        additionalProperties: false,
      };
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  // What class-validator checks on a DTO property, as schema keywords where one fits.
  private checks(declaration: ts.PropertyDeclaration): JsonSchema {
    const schema: JsonSchema = {};
    const names = new Set<string>();
    const visit = (call: ts.CallExpression, depth: number, env: Map<string, ts.Expression>) => {
      const callee = call.expression;
      if (!ts.isIdentifier(callee)) return;
      const symbol = this.resolve(this.checker.getSymbolAtLocation(callee));
      const fn = symbol?.declarations?.[0];
      const fromClassValidator = fn?.getSourceFile().fileName.includes('/node_modules/class-validator/') ?? false;
      const name = callee.text;
      if (fromClassValidator || !fn) {
        if (name === 'ValidateBy') {
          const options = call.arguments[0];
          if (options && ts.isObjectLiteralExpression(options)) {
            const named = options.properties.find(
              (p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText() === 'name',
            );
            const text = named ? this.literalText(named.initializer) : undefined;
            if (text) names.add(text);
          }
          return;
        }
        if (IGNORED_DECORATORS.has(name)) return;
        const argument = (index: number) => {
          const expression = call.arguments[index];
          if (!expression) return undefined;
          const substituted = ts.isIdentifier(expression) ? (env.get(expression.text) ?? expression) : expression;
          return this.literalValue(substituted);
        };
        if (NUMERIC_KEYWORDS[name] && typeof argument(0) === 'number') schema[NUMERIC_KEYWORDS[name]] = argument(0);
        else if (FORMATS[name]) schema['format'] = FORMATS[name];
        else if (name === 'IsIn' && Array.isArray(argument(0))) schema['enum'] = argument(0);
        else if (name === 'Matches') names.add('matches');
        else if (!['IsString', 'IsInt', 'IsNumber', 'IsBoolean', 'IsArray', 'IsObject'].includes(name)) {
          names.add(name.replace(/^Is/, 'is'));
        }
        return;
      }
      // A composed validator of ours: its `@openapi` tag when it has one, else what its body calls, with its
      // parameters bound.
      if (depth > 2 || !ts.isFunctionDeclaration(fn) || !fn.body) return;
      const bound = new Map(env);
      fn.parameters.forEach((parameter, index) => {
        const given = call.arguments[index] ?? parameter.initializer;
        if (given && ts.isIdentifier(parameter.name)) bound.set(parameter.name.text, given);
      });
      const tagged = this.openApiTag(fn, bound);
      if (tagged) {
        Object.assign(schema, tagged);
        return;
      }
      const body = fn.body;
      body.forEachChild(function walk(node) {
        if (ts.isCallExpression(node)) visit(node, depth + 1, bound);
        node.forEachChild(walk);
      });
    };
    for (const modifier of ts.getDecorators(declaration) ?? []) {
      if (ts.isCallExpression(modifier.expression)) visit(modifier.expression, 0, new Map());
    }
    if (names.size > 0) schema['x-checks'] = [...names].sort();
    return schema;
  }

  // `@openapi {"type": "integer", "maximum": "$max"}` in a validator's doc comment: its schema, `$name` being the
  // compile-time value of the parameter `name` at the call.
  private openApiTag(fn: ts.FunctionDeclaration, bound: Map<string, ts.Expression>): JsonSchema | undefined {
    const tag = ts.getJSDocTags(fn).find((t) => t.tagName.text === 'openapi');
    const text = typeof tag?.comment === 'string' ? tag.comment : undefined;
    if (!text) return undefined;
    const schema = JSON.parse(text) as JsonSchema;
    for (const [key, value] of Object.entries(schema)) {
      if (typeof value === 'string' && value.startsWith('$')) {
        const expression = bound.get(value.slice(1));
        const resolved = expression ? this.literalValue(expression) : undefined;
        if (resolved === undefined) delete schema[key];
        else schema[key] = resolved;
      }
    }
    return schema;
  }

  private schemaOf(type: ts.Type, depth = 0): JsonSchema {
    const checker = this.checker;
    if (depth > 12) return {};
    if (type.flags & ts.TypeFlags.Any || type.flags & ts.TypeFlags.Unknown) return {};
    if (type.flags & ts.TypeFlags.Null) return { type: 'null' };
    if (type.isStringLiteral()) return { const: type.value };
    if (type.isNumberLiteral()) return { const: type.value };
    if (type.flags & ts.TypeFlags.BooleanLiteral) return { const: checker.typeToString(type) === 'true' };
    if (type.flags & ts.TypeFlags.StringLike) return { type: 'string' };
    if (type.flags & ts.TypeFlags.NumberLike) return { type: 'number' };
    if (type.flags & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (type.isUnion()) return this.unionSchema(type, depth);
    if (checker.isArrayType(type)) {
      const [element] = checker.getTypeArguments(type as ts.TypeReference);
      return { type: 'array', items: element ? this.schemaOf(element, depth + 1) : {} };
    }
    const symbol = type.aliasSymbol ?? type.getSymbol();
    if (symbol?.getName() === 'Date') return { type: 'string', format: 'date-time' };
    if (type.flags & ts.TypeFlags.Object) {
      const name = this.nameOf(type);
      if (name) {
        if (!this.schemas[name]) {
          this.schemas[name] = {};
          this.schemas[name] = this.namedSchema(type, depth);
        }
        return { $ref: `#/components/schemas/${name}` };
      }
      return this.objectSchema(type, depth);
    }
    return {};
  }

  private namedSchema(type: ts.Type, depth = 0): JsonSchema {
    const schema = this.objectSchema(type, depth);
    const declaration = (type.aliasSymbol ?? type.getSymbol())?.declarations?.[0];
    const description = declaration ? this.jsDoc(declaration) : undefined;
    return description ? { description, ...schema } : schema;
  }

  private unionSchema(type: ts.UnionType, depth: number): JsonSchema {
    const members = type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined));
    const nullable = members.some((t) => t.flags & ts.TypeFlags.Null);
    const rest = members.filter((t) => !(t.flags & ts.TypeFlags.Null));
    const booleans = rest.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
    const others = rest.filter((t) => !(t.flags & ts.TypeFlags.BooleanLiteral));
    let schema: JsonSchema;
    if (others.length > 0 && others.every((t) => t.isStringLiteral() || t.isNumberLiteral()) && booleans.length === 0) {
      const values = others.map((t) => (t as ts.StringLiteralType | ts.NumberLiteralType).value);
      schema = { type: others.every((t) => t.isStringLiteral()) ? 'string' : 'number', enum: values };
    } else {
      const parts = [
        ...(booleans.length > 0 ? [{ type: 'boolean' }] : []),
        ...others.map((t) => this.schemaOf(t, depth + 1)),
      ];
      schema = parts.length === 1 ? parts[0]! : { anyOf: parts };
    }
    if (!nullable) return schema;
    if (typeof schema['type'] === 'string' && !schema['$ref']) {
      const withNull: JsonSchema = { ...schema, type: [schema['type'], 'null'] };
      if (Array.isArray(withNull['enum'])) withNull['enum'] = [...(withNull['enum'] as unknown[]), null];
      return withNull;
    }
    return { anyOf: [schema, { type: 'null' }] };
  }

  private objectSchema(type: ts.Type, depth: number): JsonSchema {
    const checker = this.checker;
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      const propertyType = declaration
        ? checker.getTypeOfSymbolAtLocation(property, declaration)
        : checker.getTypeOfSymbol(property);
      if (propertyType.getCallSignatures().length > 0) continue;
      const schema = this.schemaOf(propertyType, depth + 1);
      const description = declaration ? this.jsDoc(declaration) : undefined;
      properties[property.name] = description ? { ...schema, description } : schema;
      if (!(property.flags & ts.SymbolFlags.Optional)) required.push(property.name);
    }
    const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
    return {
      type: 'object',
      ...(Object.keys(properties).length > 0 ? { properties } : {}),
      ...(required.length > 0 ? { required } : {}),
      ...(index ? { additionalProperties: this.schemaOf(index.type, depth + 1) } : {}),
    };
  }

  // Interfaces and type aliases declared in the repository get a component of their name; anonymous and
  // library types are inlined.
  private nameOf(type: ts.Type): string | undefined {
    const symbol = type.aliasSymbol ?? type.getSymbol();
    if (!symbol || symbol.getName().startsWith('__')) return undefined;
    if ((type.aliasTypeArguments?.length ?? 0) > 0 || (type as ts.TypeReference).typeArguments?.length)
      return undefined;
    const declaration = symbol.declarations?.[0];
    if (!declaration) return undefined;
    const file = declaration.getSourceFile().fileName;
    if (file.includes('/node_modules/') || !file.startsWith(this.root)) return undefined;
    if (!(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Class)))
      return undefined;
    const existing = this.naming.get(symbol);
    if (existing) return existing;
    let name = symbol.getName();
    for (let n = 2; [...this.naming.values()].includes(name); n++) name = `${symbol.getName()}${n}`;
    this.naming.set(symbol, name);
    return name;
  }

  private errorEnvelopeType(): ts.Type {
    // Found through any file that declares it; the contracts lib always does.
    for (const file of this.program.getSourceFiles()) {
      if (!file.fileName.endsWith('libs/contracts/src/errors/api-error.ts')) continue;
      for (const statement of file.statements) {
        if (ts.isInterfaceDeclaration(statement) && statement.name.text === 'ErrorEnvelope') {
          const type = this.checker.getTypeAtLocation(statement);
          const symbol = type.getSymbol();
          if (symbol) this.naming.set(symbol, 'ErrorEnvelope');
          return type;
        }
      }
    }
    throw new Error('ErrorEnvelope (libs/contracts/src/errors/api-error.ts) not found');
  }

  private jsDoc(node: ts.Node): string | undefined {
    const symbol = (node as { name?: ts.Node }).name
      ? this.checker.getSymbolAtLocation((node as unknown as { name: ts.Node }).name)
      : undefined;
    const text = symbol ? ts.displayPartsToString(symbol.getDocumentationComment(this.checker)).trim() : '';
    return text === '' ? undefined : text;
  }

  private resolve(symbol: ts.Symbol | undefined): ts.Symbol | undefined {
    return symbol && symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol;
  }

  private literalText(expression: ts.Expression | undefined): string | undefined {
    const value = this.literalValue(expression);
    return typeof value === 'string' ? value : undefined;
  }

  // The compile-time value of a literal, a const, a property of an `as const` object, or an array of those.
  private literalValue(expression: ts.Expression | undefined): unknown {
    if (!expression) return undefined;
    if (ts.isStringLiteralLike(expression)) return expression.text;
    if (ts.isNumericLiteral(expression)) return Number(expression.text);
    if (ts.isArrayLiteralExpression(expression)) return expression.elements.map((e) => this.literalValue(e));
    const type = this.checker.getTypeAtLocation(expression);
    if (type.isStringLiteral() || type.isNumberLiteral()) return type.value;
    if (this.checker.isTupleType(type) || this.checker.isArrayType(type)) {
      const elements = this.checker.getTypeArguments(type as ts.TypeReference);
      const values = elements.map((t) => (t.isStringLiteral() || t.isNumberLiteral() ? t.value : undefined));
      return values.every((v) => v !== undefined) ? values : undefined;
    }
    return undefined;
  }
}

function decorator(node: ts.Node, name: string): ts.CallExpression | undefined {
  if (!ts.canHaveDecorators(node)) return undefined;
  for (const item of ts.getDecorators(node) ?? []) {
    const expression = item.expression;
    if (
      ts.isCallExpression(expression) &&
      ts.isIdentifier(expression.expression) &&
      expression.expression.text === name
    ) {
      return expression;
    }
  }
  return undefined;
}

function isOptional(declaration: ts.PropertyDeclaration): boolean {
  return declaration.questionToken !== undefined || decorator(declaration, 'IsOptional') !== undefined;
}
