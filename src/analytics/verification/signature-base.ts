import { parseDictionary, parseItem, serializeItem, Token, type BareItem, type InnerList, type Item } from 'structured-headers';
import { componentText, innerListText } from './field-serialization.js';
import type { SignatureHeaders } from './hit-verifier.js';

/** The web-bot-auth signature of a request, parsed, with the signature base it signs. */
export interface ParsedSignature {
  label: string;
  signature: Uint8Array;
  base: string;
  /** The Signature-Agent origin ("https://chatgpt.com"); keys are looked up under it. */
  agentUrl: string;
  keyId: string;
  created: number;
  expires: number;
  nonce: string | null;
}

export type SignatureProblem = { problem: 'malformed'; reason: string } | { problem: 'unverifiable'; reason: string };

export const WEB_BOT_AUTH_TAG = 'web-bot-auth';

/** A Signature of one member holding a byte sequence and no parameters (RFC 8941 §3.3.5), optional spaces around. */
const SINGLE_SIGNATURE = /^ *([a-z*][a-z0-9_.*-]*)=:((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?): *$/;

/**
 * Finds the `tag="web-bot-auth"` signature in Signature-Input / Signature and builds its
 * signature base (RFC 9421 §2.5) from the request line and Signature-Agent, the only parts
 * an analytics event carries. Signatures over other header fields cannot be checked here
 * and are `unverifiable` (the hit is then judged by its address), never failed.
 */
export function parseWebBotAuthSignature(headers: SignatureHeaders): ParsedSignature | SignatureProblem {
  const known = parses.get(headers);
  if (known !== undefined && sameHeaders(known.headers, headers)) return known.result;
  const result = parseSignature(headers);
  parses.set(headers, { headers: { ...headers }, result });
  return result;
}

/**
 * The last parse of each headers object. A signed hit's headers are parsed when the event
 * is validated, again when a browser User-Agent is classified by its signer, and again
 * when verified: ~10 µs each, as much as a whole unsigned hit's ingest. Keyed by the object
 * (nothing is kept once the event is gone), and only reused while every field is the same,
 * so a caller that changes a field gets a fresh parse.
 */
const parses = new WeakMap<SignatureHeaders, { headers: SignatureHeaders; result: ParsedSignature | SignatureProblem }>();

function sameHeaders(a: SignatureHeaders, b: SignatureHeaders): boolean {
  return (
    a.signature === b.signature &&
    a.signatureInput === b.signatureInput &&
    (a.signatureAgent ?? null) === (b.signatureAgent ?? null) &&
    a.method === b.method &&
    a.authority === b.authority &&
    a.path === b.path
  );
}

function parseSignature(headers: SignatureHeaders): ParsedSignature | SignatureProblem {
  let inputs;
  let signatures: Map<string, Item | InnerList> | null = null;
  // The usual Signature is one member, `label=:base64:`: read without a full parse
  // (which would accept it just the same); anything else goes through parseDictionary.
  const single = SINGLE_SIGNATURE.exec(headers.signature);
  try {
    inputs = parseDictionary(headers.signatureInput);
    if (single === null) signatures = parseDictionary(headers.signature);
  } catch {
    return malformed('Signature-Input and Signature must be structured-field dictionaries (RFC 9421 §4)');
  }
  for (const [label, input] of inputs) {
    if (!isInnerList(input) || input[1].get('tag') !== WEB_BOT_AUTH_TAG) continue;
    if (single !== null) {
      if (single[1] !== label) return malformed(`Signature has no byte sequence for "${label}"`);
      return parseOne(label, input, new Uint8Array(Buffer.from(single[2]!, 'base64')), headers);
    }
    const signed = signatures!.get(label);
    if (signed === undefined || isInnerList(signed) || !(signed[0] instanceof ArrayBuffer)) return malformed(`Signature has no byte sequence for "${label}"`);
    return parseOne(label, input, new Uint8Array(signed[0]), headers);
  }
  return malformed('no signature with tag="web-bot-auth"');
}

function parseOne(label: string, input: InnerList, signature: Uint8Array, headers: SignatureHeaders): ParsedSignature | SignatureProblem {
  const params = input[1];
  const created = parameter(params, 'created');
  const expires = parameter(params, 'expires');
  const keyId = parameter(params, 'keyid');
  const nonce = parameter(params, 'nonce');
  const alg = parameter(params, 'alg');
  if (!Number.isSafeInteger(created) || !Number.isSafeInteger(expires)) return malformed('created and expires must be integers');
  if (typeof keyId !== 'string' || keyId === '') return malformed('keyid must be a string');
  if (nonce !== undefined && typeof nonce !== 'string') return malformed('nonce must be a string');
  if (alg !== undefined && alg !== 'ed25519')
    return { problem: 'unverifiable', reason: `alg ${typeof alg === 'string' ? alg : 'of another type'} is not ed25519` };

  const agent = cachedSignatureAgent(headers.signatureAgent ?? null, label);
  if (typeof agent !== 'string' && 'problem' in agent) return agent;
  const lines: string[] = [];
  let coversAuthority = false;
  let coversAgent = false;
  for (const component of input[0]) {
    const name: unknown = component[0];
    if (typeof name !== 'string') return malformed('covered components must be strings');
    const value = componentValue(name, component, headers, agent);
    if (value === null) return { problem: 'unverifiable', reason: `the signature covers ${serializeItem(component)}, which an analytics event does not carry` };
    if (name === '@authority') coversAuthority = true;
    if (name === 'signature-agent') coversAgent = true;
    lines.push(`${componentText(component)}: ${value}\n`);
  }
  if (!coversAuthority) return malformed('a web-bot-auth signature must cover @authority');
  if (agent.raw !== null && !coversAgent) return malformed('Signature-Agent is sent but not covered by the signature');
  if (agent.url === null) return { problem: 'unverifiable', reason: 'no Signature-Agent: keys are looked up per agent, never by key id alone' };
  return {
    label,
    signature,
    base: `${lines.join('')}"@signature-params": ${innerListText(input)}`,
    agentUrl: agent.url,
    keyId,
    created: created as number,
    expires: expires as number,
    nonce: nonce ?? null,
  };
}

interface AgentHeader {
  raw: string | null;
  url: string | null;
  /** Dictionary form: the members by key, serialized as the signature base needs them. */
  members: Map<string, string> | null;
}

const AGENT_HEADERS = 256;
let agentHeaders = new Map<string, AgentHeader | SignatureProblem>();

/**
 * An agent sends the same Signature-Agent on every request, so its parse is remembered
 * (256 header values, label included; the map starts over when full): a structured-field
 * parse costs more than the lookup. The values are never mutated.
 */
function cachedSignatureAgent(raw: string | null, label: string): AgentHeader | SignatureProblem {
  if (raw === null) return signatureAgent(raw, label);
  const key = `${label}\n${raw}`;
  let parsed = agentHeaders.get(key);
  if (parsed === undefined) {
    parsed = signatureAgent(raw, label);
    if (agentHeaders.size >= AGENT_HEADERS) agentHeaders = new Map();
    agentHeaders.set(key, parsed);
  }
  return parsed;
}

/**
 * Signature-Agent comes in two forms: a single string (`"https://chatgpt.com"`, the first
 * drafts and ChatGPT agent) and a dictionary keyed by signature label
 * (`sig1="https://agent.example"`, draft-ietf-webbotauth-httpsig-protocol).
 */
function signatureAgent(raw: string | null, label: string): AgentHeader | SignatureProblem {
  if (raw === null || raw.trim() === '') return { raw: null, url: null, members: null };
  const value = raw.trim();
  if (value.startsWith('"')) {
    let item: Item;
    try {
      item = parseItem(value);
    } catch {
      return malformed('Signature-Agent is not a structured-field string');
    }
    return { raw: value, url: agentOrigin(item[0]), members: null };
  }
  try {
    const dictionary = parseDictionary(value);
    const members = new Map<string, string>();
    for (const [key, member] of dictionary) if (!isInnerList(member)) members.set(key, serializeItem(member));
    const own = dictionary.get(label);
    const url = own !== undefined && !isInnerList(own) ? agentOrigin(own[0]) : null;
    return { raw: value, url, members };
  } catch {
    // Early senders wrote the URL bare; as an sf-token it still parses as an item.
    try {
      return { raw: value, url: agentOrigin(parseItem(value)[0]), members: null };
    } catch {
      return malformed('Signature-Agent is neither a string nor a dictionary');
    }
  }
}

/** The origin of a Signature-Agent URL; keys live in its directory, so nothing else of it matters. */
function agentOrigin(value: BareItem): string | null {
  const text = typeof value === 'string' ? value : value instanceof Token ? value.toString() : null;
  if (text === null || text.length > 2048) return null;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
  } catch {
    return null;
  }
}

function componentValue(name: string, component: Item, headers: SignatureHeaders, agent: AgentHeader): string | null {
  const params = component[1];
  if (name === 'signature-agent') {
    if (agent.raw === null) return null;
    const key = parameter(params, 'key');
    if (key === undefined) return params.size === 0 ? agent.raw : null;
    return typeof key === 'string' && params.size === 1 ? (agent.members?.get(key) ?? null) : null;
  }
  if (params.size > 0) return null;
  const query = headers.path.indexOf('?');
  switch (name) {
    case '@method':
      return headers.method;
    case '@authority':
      return headers.authority.toLowerCase();
    case '@path':
      return query === -1 ? headers.path : headers.path.slice(0, query);
    case '@query':
      return query === -1 ? '?' : headers.path.slice(query);
    case '@scheme':
      return 'https';
    case '@target-uri':
      return `https://${headers.authority.toLowerCase()}${headers.path}`;
    default:
      return null;
  }
}

/**
 * A parameter's value as unknown: structured-headers types bare items with the DOM's
 * BufferSource, which this Node-only build does not declare, so they are narrowed here.
 */
function parameter(params: ReadonlyMap<string, unknown>, key: string): unknown {
  return params.get(key);
}

function isInnerList(member: Item | InnerList): member is InnerList {
  return Array.isArray(member[0]);
}

function malformed(reason: string): SignatureProblem {
  return { problem: 'malformed', reason };
}
