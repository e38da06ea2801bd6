import { get } from 'node:http';
import type { VisitorsAnswer, VisitorsQuestion } from './analytics-visitors-answer.js';
import type { BenchServer } from './lib/docwright-server.js';

/**
 * Docwright's answer to a visitors question, through `GET /v1/analytics/{projectId}/visitors`
 * as any client would ask. Plain node:http rather than fetch: the first query after a large
 * load can wait minutes for the rollups, longer than fetch's five-minute header timeout.
 */
export async function queryVisitorsOverHttp(server: BenchServer, question: VisitorsQuestion): Promise<VisitorsAnswer> {
  return getJsonOverHttp<VisitorsAnswer>(server, 'visitors', {
    dateFrom: new Date(question.from).toISOString(),
    dateTo: new Date(question.to).toISOString(),
    limit: String(question.limit),
    offset: String(question.offset),
  });
}

/** GET /v1/analytics/{projectId}/{report}?… with the server's key; the parsed JSON of a 200, else an error. */
export async function getJsonOverHttp<T = unknown>(server: BenchServer, report: string, parameters: Record<string, string>): Promise<T> {
  const url = new URL(`${server.url}/v1/analytics/${encodeURIComponent(server.projectId)}/${report}`);
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = get(url, { headers: { authorization: `Bearer ${server.apiKey}` } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
  if (status !== 200) throw new Error(`GET ${url.pathname} answered ${status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}
