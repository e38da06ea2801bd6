import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { FakeModelRequest } from '../fakes/fake-model-types.js';

/**
 * The wire as a contract: every request body a fake provider recorded must type-check against
 * the providers' official SDK types (`@anthropic-ai/sdk` `MessageCreateParams`, `openai`
 * `ChatCompletionCreateParams`). Each body becomes an object literal that `satisfies` its type,
 * so a wrong type, a missing field and an unknown property (the literal's excess property check)
 * all fail, and one in-memory TypeScript program checks all of them at once.
 */

const HERE = dirname(fileURLToPath(import.meta.url));
// In the project, so that module resolution finds the SDKs in node_modules.
const VIRTUAL_FILE = join(HERE, '__provider-requests__.ts');
/** Text content is irrelevant to the types; long strings are shortened to keep the program small. */
const MAX_STRING = 200;

/** The official types a value can be checked against: the requests, and the answers the fakes send. */
export type SdkTypeName =
  'AnthropicRequest' | 'OpenAIRequest' | 'AnthropicMessage' | 'AnthropicStreamEvent' | 'OpenAIChatCompletion' | 'OpenAIChatCompletionChunk';

const TYPE_OF: Record<FakeModelRequest['protocol'], SdkTypeName> = {
  'anthropic-messages': 'AnthropicRequest',
  'openai-chat': 'OpenAIRequest',
};

const PREAMBLE = `import type { Message, MessageCreateParamsNonStreaming, MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParams } from 'openai/resources/chat/completions/completions';
type AnthropicRequest = MessageCreateParamsStreaming | MessageCreateParamsNonStreaming;
type OpenAIRequest = ChatCompletionCreateParams;
type AnthropicMessage = Message;
type AnthropicStreamEvent = RawMessageStreamEvent;
type OpenAIChatCompletion = ChatCompletion;
type OpenAIChatCompletionChunk = ChatCompletionChunk;
`;

/**
 * The files that define the request types. The rest of each SDK (client, streaming, the other
 * API resources) and the type packages they reference are served empty: the request types use
 * nothing from them (checked when these SDKs are upgraded: messages.d.mts imports only the
 * Batches resource class from its siblings, completions.d.mts only response types besides
 * shared.d.mts), and this keeps the program at about 80 files instead of 600.
 */
const TYPE_FILES = [
  /\/node_modules\/@anthropic-ai\/sdk\/resources\/messages\/messages\.d\.mts$/,
  /\/node_modules\/openai\/resources\/chat\/completions\/completions\.d\.mts$/,
  /\/node_modules\/openai\/resources\/shared\.d\.mts$/,
  /\/node_modules\/openai\/resources\/completions\.d\.mts$/,
];
const SERVED_EMPTY = /\/node_modules\/(?:@anthropic-ai\/sdk|openai|@types|@opentelemetry)\//;

function servedEmpty(fileName: string): boolean {
  return SERVED_EMPTY.test(fileName) && !TYPE_FILES.some((pattern) => pattern.test(fileName));
}

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts'],
  types: [],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};

function shortened(value: unknown): unknown {
  if (typeof value === 'string') return value.length > MAX_STRING ? value.slice(0, MAX_STRING) : value;
  if (Array.isArray(value)) return value.map(shortened);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, shortened(entry)]));
  return value;
}

/** Where in the body a position of the generated source is, as `messages[1].content[0].type`. */
function pathAt(source: ts.SourceFile, position: number): string {
  const parts: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node)) parts.push(`.${node.name.getText(source).replace(/^"|"$/g, '')}`);
    if (ts.isArrayLiteralExpression(node)) {
      const index = node.elements.findIndex((element) => element.getStart(source) <= position && position < element.getEnd());
      if (index >= 0) parts.push(`[${index}]`);
    }
    const child = node.getChildren(source).find((entry) => entry.getStart(source) <= position && position < entry.getEnd());
    if (child !== undefined) visit(child);
  };
  visit(source);
  return parts.join('').replace(/^\./, '');
}

let previousProgram: ts.Program | undefined;
/** Library files parsed once per process: later calls only parse and check the requests. */
const parsed = new Map<string, ts.SourceFile>();

function compilerHost(text: string): ts.CompilerHost {
  const host = ts.createCompilerHost(OPTIONS);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (fileName === VIRTUAL_FILE) return ts.createSourceFile(fileName, text, languageVersion, true);
    let file = parsed.get(fileName);
    if (file === undefined) {
      file = servedEmpty(fileName) ? ts.createSourceFile(fileName, 'export {};', languageVersion) : read(fileName, languageVersion, onError, shouldCreate);
      if (file !== undefined) parsed.set(fileName, file);
    }
    return file;
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => fileName === VIRTUAL_FILE || fileExists(fileName);
  return host;
}

export interface SdkTypedValue {
  /** Names the value in the error, e.g. `request 3 (anthropic-messages /v1/messages)`. */
  label: string;
  type: SdkTypeName;
  value: unknown;
}

/** Throws, naming each value, the place in it and TypeScript's message, unless every value type-checks. */
export function assertMatchesSdkTypes(values: readonly SdkTypedValue[]): void {
  if (values.length === 0) return;
  const starts: number[] = [];
  let text = PREAMBLE;
  values.forEach((entry, index) => {
    starts.push(text.length);
    text += `export const value${index} = ${JSON.stringify(shortened(entry.value), null, 2)} satisfies ${entry.type};\n`;
  });
  const program = ts.createProgram({
    rootNames: [VIRTUAL_FILE],
    options: OPTIONS,
    host: compilerHost(text),
    ...(previousProgram === undefined ? {} : { oldProgram: previousProgram }),
  });
  previousProgram = program;
  const source = program.getSourceFile(VIRTUAL_FILE)!;
  const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  if (diagnostics.length === 0) return;
  const problems = diagnostics.map((diagnostic) => {
    const position = diagnostic.start ?? 0;
    const index = starts.findLastIndex((start) => start <= position);
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n    ');
    if (index < 0) return `the type preamble: ${message}`;
    return `${values[index]!.label} at ${pathAt(source, position) || 'the top'}: ${message}`;
  });
  throw new Error(`Values that do not match the providers' SDK types:\n  ${problems.join('\n  ')}`);
}

/** Throws, naming each request, the place in its body and TypeScript's message, unless every body type-checks. */
export function assertRequestsMatchSdkTypes(requests: readonly FakeModelRequest[]): void {
  assertMatchesSdkTypes(
    requests.map((request, index) => ({
      label: `request ${index} (${request.protocol} ${request.path})`,
      type: TYPE_OF[request.protocol],
      value: request.body,
    })),
  );
}
