import {
  AGENT_LEVELS,
  type AgentLevel,
  CHAT_LIMITS,
  CHAT_ROLES,
  CHAT_TURN_DEFAULTS,
  type ChatCancelRequest,
  type ChatCompletionRequest,
  type ChatContentPart,
  type ChatMessage,
  type ChatRole,
  type ChatTurnRequest,
  type InputFileRef,
  OUTPUT_FORMATS,
  type OutputFormat,
  REPORT_MODES,
  type ReportMode,
  isStorableText,
  isUuid,
} from '@fed/contracts';
import { type ValidationMessage, withCode } from '@fed/server';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  Equals,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsString,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
} from 'class-validator';
import { IsConversationId } from '../conversations/conversations.dto';

// Document 2 ("Chat request", "Message object", "Limits"). A refusal about the request's shape is
// `invalid_request`, one about an option's value `invalid_parameter`, a bad conversationId
// `invalid_conversation_id`. Unknown fields are dropped, not refused: clients and servers ignore them.

const invalid = (message: ValidationMessage) => withCode('invalid_request', message);
const invalidParameter = (message: ValidationMessage) => withCode('invalid_parameter', message);

/** Absent means absent; `null` is a value, and a wrong one (IsOptional would let it through). */
const IfPresent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

function IsPresent(message: string): PropertyDecorator {
  return ValidateBy(
    { name: 'isPresent', validator: { validate: (value: unknown) => value !== undefined } },
    invalid(message),
  );
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A persona key, playbook id or skill id: non-empty storable text of a bounded length. */
function isCatalogId(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= CHAT_LIMITS.catalogIdCharacters &&
    isStorableText(value)
  );
}

function CatalogId(message: string, each = false): PropertyDecorator {
  return ValidateBy(
    { name: 'isCatalogId', validator: { validate: (value: unknown) => isCatalogId(value) } },
    { ...invalidParameter(message), each },
  );
}

/** What is wrong with one content part, after its path (`.fileId must be a UUID`); undefined when nothing is. */
function partProblem(part: unknown): string | undefined {
  if (!isJsonObject(part)) return ' must be an object';
  if (part.type === 'text') return typeof part.text === 'string' ? undefined : '.text must be a string';
  if (part.type !== 'input_file') return '.type must be text or input_file';
  const hasId = part.fileId !== undefined;
  if (hasId === (part.filepath !== undefined)) return ' must give exactly one of fileId and filepath';
  if (hasId) return isUuid(part.fileId) ? undefined : '.fileId must be a UUID';
  const path = part.filepath;
  return typeof path === 'string' &&
    path.length > 0 &&
    path.length <= CHAT_LIMITS.filepathCharacters &&
    isStorableText(path)
    ? undefined
    : `.filepath must be a non-empty string of at most ${CHAT_LIMITS.filepathCharacters} characters`;
}

function contentProblem(content: unknown): string | undefined {
  if (typeof content === 'string') return undefined;
  if (!Array.isArray(content)) return ' must be a string or an array of content parts';
  if (content.length > CHAT_LIMITS.partsPerMessage) return ` has more than ${CHAT_LIMITS.partsPerMessage} parts`;
  for (const [index, part] of content.entries()) {
    const problem = partProblem(part);
    if (problem) return `[${index}]${problem}`;
  }
  return undefined;
}

/** The union `string | ChatContentPart[]`, which no stock decorator describes. */
function IsChatContent(): PropertyDecorator {
  return ValidateBy(
    { name: 'isChatContent', validator: { validate: (value: unknown) => contentProblem(value) === undefined } },
    invalid((args: ValidationArguments) => `$path${contentProblem(args.value) ?? ' is invalid'}`),
  );
}

export class ChatMessageDto implements ChatMessage {
  @IsString(invalid('$path is required and must be a string'))
  @IsIn(CHAT_ROLES, invalid('$path must be user, assistant or system'))
  role!: ChatRole;

  @IsPresent('$path is required')
  @IsChatContent()
  content!: string | ChatContentPart[];
}

/** The processed part of a request: the last user message's text parts, joined, and its files. */
interface UserTurn {
  text: string;
  files: InputFileRef[];
}

function userTurnOf(messages: readonly ChatMessage[]): UserTurn | undefined {
  const last = messages.findLast((message) => message.role === 'user');
  if (!last) return undefined;
  if (typeof last.content === 'string') return { text: last.content, files: [] };
  const texts: string[] = [];
  const files: InputFileRef[] = [];
  for (const part of last.content) {
    if (part.type === 'text') texts.push(part.text);
    else files.push('fileId' in part ? { fileId: part.fileId } : { filepath: part.filepath });
  }
  return { text: texts.join('\n\n'), files };
}

function isWellFormed(message: unknown): message is ChatMessage {
  return (
    message instanceof ChatMessageDto &&
    (CHAT_ROLES as readonly unknown[]).includes(message.role) &&
    contentProblem(message.content) === undefined
  );
}

/** What is wrong with the messages taken together; the element checks speak first about a bad element. */
function turnProblem(messages: unknown): string | undefined {
  if (!Array.isArray(messages) || !messages.every(isWellFormed)) return undefined;
  const inputFiles = messages.reduce(
    (count, { content }) =>
      typeof content === 'string' ? count : count + content.filter((part) => part.type === 'input_file').length,
    0,
  );
  if (inputFiles > CHAT_LIMITS.inputFileParts) {
    return `at most ${CHAT_LIMITS.inputFileParts} input_file parts are allowed per request`;
  }
  const turn = userTurnOf(messages);
  if (!turn) return 'messages must contain a user message';
  if (Buffer.byteLength(turn.text, 'utf8') > CHAT_LIMITS.processedTextBytes) {
    return 'the message text is larger than 1 MB (UTF-8)';
  }
  if (!isStorableText(turn.text)) return 'the message text contains NUL or unpaired surrogate characters';
  if (turn.text.trim().length === 0 && turn.files.length === 0) return 'the user message is empty';
  return undefined;
}

function IsChatTurn(): PropertyDecorator {
  return ValidateBy(
    { name: 'isChatTurn', validator: { validate: (value: unknown) => turnProblem(value) === undefined } },
    invalid((args: ValidationArguments) => turnProblem(args.value) ?? 'messages are invalid'),
  );
}

// class-validator names the array, not the element: find which one.
const firstNonObject = ({ value }: ValidationArguments) =>
  Array.isArray(value)
    ? `messages[${value.findIndex((message) => !isJsonObject(message))}] must be an object`
    : 'messages must be a non-empty array';

/** What both editions' chat requests hold. The model's name is the service's: checked where config is known. */
class ChatRequestCoreDto {
  @IsString(invalid('model is required and must be a string'))
  model!: string;

  @IsPresent('stream is required and must be true')
  @Equals(true, invalid('stream must be true: only streaming is supported'))
  stream!: true;

  @IfPresent()
  @IsConversationId('conversationId must be a UUID string')
  conversationId?: string;

  @IsArray(invalid('messages must be a non-empty array'))
  @ArrayNotEmpty(invalid('messages must be a non-empty array'))
  @ArrayMaxSize(CHAT_LIMITS.messages, invalid(`messages has more than ${CHAT_LIMITS.messages} entries`))
  @IsObject({ ...invalid(firstNonObject), each: true })
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
  @IsChatTurn()
  messages!: ChatMessageDto[];

  @IfPresent()
  @IsIn(OUTPUT_FORMATS, invalidParameter(`outputFormat must be one of ${OUTPUT_FORMATS.join(', ')}`))
  outputFormat?: OutputFormat;
}

/** The body of `POST /v1/chat/completions` in the SaaS edition. */
export class ChatCompletionRequestDto extends ChatRequestCoreDto implements ChatCompletionRequest {
  @IfPresent()
  @IsArray(invalidParameter('skillIds must be an array of strings'))
  @ArrayMaxSize(CHAT_LIMITS.skillIds, invalidParameter(`skillIds may hold at most ${CHAT_LIMITS.skillIds} entries`))
  @CatalogId('skillIds must be an array of non-empty strings', true)
  skillIds?: string[];

  @IfPresent()
  @IsIn(AGENT_LEVELS, invalidParameter(`agentLevel must be one of ${AGENT_LEVELS.join(', ')}`))
  agentLevel?: AgentLevel;

  @IfPresent()
  @IsBoolean(invalidParameter('agentMode must be a boolean'))
  agentMode?: boolean;

  @IfPresent()
  @IsBoolean(invalidParameter('privateMode must be a boolean'))
  privateMode?: boolean;

  @IfPresent()
  @IsIn(REPORT_MODES, invalidParameter(`reportMode must be one of ${REPORT_MODES.join(', ')}`))
  reportMode?: ReportMode;

  @IfPresent()
  @CatalogId(`personaKey must be a non-empty string of at most ${CHAT_LIMITS.catalogIdCharacters} characters`)
  personaKey?: string;

  @IfPresent()
  @CatalogId(`playbookId must be a non-empty string of at most ${CHAT_LIMITS.catalogIdCharacters} characters`)
  playbookId?: string;
}

/** Marketplace body: SaaS-only fields are undeclared, so the pipe drops them (document 2 ignores them there). */
export class MarketplaceChatRequestDto extends ChatRequestCoreDto implements ChatCompletionRequest {
  @IfPresent()
  @IsString(invalid('agentId must be a string'))
  agentId?: string;
}

/** The Marketplace turn: the defaults of every SaaS-only option, the request's outputFormat, the agent. */
export function toMarketplaceTurnRequest(body: MarketplaceChatRequestDto, agentId: string): ChatTurnRequest {
  const turn = userTurnOf(body.messages) as UserTurn;
  return {
    ...(body.conversationId !== undefined ? { conversationId: body.conversationId } : {}),
    text: turn.text,
    files: turn.files,
    options: { ...CHAT_TURN_DEFAULTS, outputFormat: body.outputFormat ?? CHAT_TURN_DEFAULTS.outputFormat, agentId },
  };
}

/** The turn a validated chat request asks for: its last user message, the options with their defaults. */
export function toChatTurnRequest(body: ChatCompletionRequestDto): ChatTurnRequest {
  const turn = userTurnOf(body.messages) as UserTurn;
  const options: ChatTurnRequest['options'] = {
    agentLevel: body.agentLevel ?? CHAT_TURN_DEFAULTS.agentLevel,
    agentMode: body.agentMode ?? CHAT_TURN_DEFAULTS.agentMode,
    privateMode: body.privateMode ?? CHAT_TURN_DEFAULTS.privateMode,
    reportMode: body.reportMode ?? CHAT_TURN_DEFAULTS.reportMode,
    outputFormat: body.outputFormat ?? CHAT_TURN_DEFAULTS.outputFormat,
  };
  if (body.personaKey !== undefined) options.personaKey = body.personaKey;
  if (body.playbookId !== undefined) options.playbookId = body.playbookId;
  if (body.skillIds !== undefined) options.skillIds = body.skillIds;
  return {
    ...(body.conversationId !== undefined ? { conversationId: body.conversationId } : {}),
    text: turn.text,
    files: turn.files,
    options,
  };
}

/** The optional body of `POST /v1/chat/completions/:conversationId/cancel`. */
export class ChatCancelRequestDto implements ChatCancelRequest {
  @IfPresent()
  @Transform(({ value }: { value: unknown }) => (isUuid(value) ? value.toLowerCase() : value))
  @ValidateBy(
    { name: 'isMessageId', validator: { validate: (value: unknown) => isUuid(value) } },
    invalidParameter('messageId must be a UUID string'),
  )
  messageId?: string;
}
