import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';

// Checks a real answer against the OpenAPI document the server serves: that its status is
// documented for the operation, its Content-Type is one the response lists, its body
// validates against that schema (JSON Schema 2020-12, ajv), every header the response
// declares required is there and valid, and no header of WATCHED is sent undocumented.

/** Headers whose presence the document must announce wherever they are sent. */
const WATCHED = ['x-request-id', 'ratelimit', 'ratelimit-policy', 'retry-after', 'idempotent-replayed', 'location', 'accept-encoding'];

export interface RealResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export class OpenApiResponses {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<object, ValidateFunction>();
  private readonly templates: Array<{ template: string; pattern: RegExp; literal: number }>;

  constructor(private readonly document: OpenAPIV3_1.Document) {
    addFormats(this.ajv);
    // Component schemas under one id, so `#/components/schemas/X` references resolve.
    this.ajv.addSchema({ $id: 'urn:docwright:openapi', $defs: rewriteRefs(document.components?.schemas ?? {}) });
    this.templates = Object.keys(document.paths ?? {}).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      literal: template.replace(/\{[^}]+\}/g, '').length,
    }));
  }

  /** The problems of one answer; empty when it matches the document. */
  check(method: string, url: string, response: RealResponse): string[] {
    const path = new URL(url, 'http://x').pathname;
    // The most literal template wins (`/jobs/events` over `/job/{id}`).
    const match = this.templates.filter(({ pattern }) => pattern.test(path)).sort((a, b) => b.literal - a.literal)[0];
    const where = `${method.toUpperCase()} ${path} → ${response.status}`;
    if (!match) return [`${where}: no path of the document matches`];
    const operation = (this.document.paths?.[match.template] as Record<string, OpenAPIV3_1.OperationObject | undefined> | undefined)?.[method.toLowerCase()];
    if (!operation) return [`${where}: ${match.template} documents no ${method}`];
    const documented = (operation.responses?.[String(response.status)] ?? operation.responses?.default) as OpenAPIV3_1.ResponseObject | undefined;
    if (!documented) return [`${where}: status not documented (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`];
    return [...this.checkBody(where, documented, response), ...this.checkHeaders(where, documented, response)];
  }

  private checkBody(where: string, documented: OpenAPIV3_1.ResponseObject, response: RealResponse): string[] {
    const type = response.headers['content-type']?.split(';')[0]?.trim();
    if (!documented.content) return response.body === '' ? [] : [`${where}: a body where the document says none`];
    const media = type === undefined ? undefined : documented.content[type];
    if (!media) return [`${where}: Content-Type ${type ?? '(none)'} is not one of ${Object.keys(documented.content).join(', ')}`];
    if (type === 'text/event-stream') return [];
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      return [`${where}: the ${type} body is not JSON`];
    }
    const validate = this.validator(media.schema ?? {});
    return validate(body) ? [] : [`${where}: body ${this.ajv.errorsText(validate.errors)} (${response.body.slice(0, 300)})`];
  }

  private checkHeaders(where: string, documented: OpenAPIV3_1.ResponseObject, response: RealResponse): string[] {
    const problems: string[] = [];
    const declared = new Map(Object.entries(documented.headers ?? {}).map(([name, header]) => [name.toLowerCase(), this.resolveHeader(header)]));
    for (const [name, header] of declared) {
      const value = response.headers[name];
      if (value === undefined) {
        if (header.required === true) problems.push(`${where}: required header ${name} is missing`);
        continue;
      }
      const validate = this.validator(header.schema ?? {});
      if (!validate(value)) problems.push(`${where}: header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(validate.errors)}`);
    }
    for (const name of WATCHED) {
      if (response.headers[name] !== undefined && !declared.has(name))
        problems.push(`${where}: sends ${name}, which the document does not declare for this response`);
    }
    return problems;
  }

  private resolveHeader(header: OpenAPIV3_1.HeaderObject | OpenAPIV3_1.ReferenceObject): OpenAPIV3_1.HeaderObject {
    if (!('$ref' in header)) return header;
    const name = header.$ref.split('/').pop() ?? '';
    const resolved = this.document.components?.headers?.[name];
    if (!resolved || '$ref' in resolved) throw new Error(`unresolved header ${header.$ref}`);
    return resolved;
  }

  private validator(schema: object): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema));
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}

/** `#/components/schemas/X` → the same schema under the id the validator registers them with. */
function rewriteRefs(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"urn:docwright:openapi#/$defs/')) as object;
}

/** A fetch answer as a RealResponse (the body read whole). */
export async function realResponse(response: Response): Promise<RealResponse> {
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: await response.text() };
}
