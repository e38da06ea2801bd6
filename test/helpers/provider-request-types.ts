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

const TYPE_OF: Record<FakeModelRequest['protocol'], string> = {
  'anthropic-messages': 'AnthropicRequest',
  'openai-chat': 'OpenAIRequest',
};

const PREAMBLE = `import type { MessageCreateParamsNonStreaming, MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions/completions';
type AnthropicRequest = MessageCreateParamsStreaming | MessageCreateParamsNonStreaming;
type OpenAIRequest = ChatCompletionCreateParams;
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

/** Throws, naming each request, the place in its body and TypeScript's message, unless every body type-checks. */
export function assertRequestsMatchSdkTypes(requests: readonly FakeModelRequest[]): void {
  if (requests.length === 0) return;
  const starts: number[] = [];
  let text = PREAMBLE;
  requests.forEach((request, index) => {
    starts.push(text.length);
    text += `export const request${index} = ${JSON.stringify(shortened(request.body), null, 2)} satisfies ${TYPE_OF[request.protocol]};\n`;
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
    const request = requests[index]!;
    return `request ${index} (${request.protocol} ${request.path}) at ${pathAt(source, position) || 'the body'}: ${message}`;
  });
  throw new Error(`Requests that do not match the providers' SDK types:\n  ${problems.join('\n  ')}`);
}
