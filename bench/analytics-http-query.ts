import { get } from 'node:http';
import type { VisitorsAnswer, VisitorsQuestion } from './analytics-visitors-answer.js';
import type { BenchServer } from './lib/docwright-server.js';

/**
 * Docwright's answer to a visitors question, through `GET /v1/analytics/{projectId}/visitors`
 * as any client would ask. Plain node:http rather than fetch: the first query after a large
 * load can wait minutes for the rollups, longer than fetch's five-minute header timeout.
 */
export async function queryVisitorsOverHttp(server: BenchServer, question: VisitorsQuestion): Promise<VisitorsAnswer> {
  const url = new URL(`${server.url}/v1/analytics/${encodeURIComponent(server.projectId)}/visitors`);
  url.searchParams.set('dateFrom', new Date(question.from).toISOString());
  url.searchParams.set('dateTo', new Date(question.to).toISOString());
  url.searchParams.set('limit', String(question.limit));
  url.searchParams.set('offset', String(question.offset));
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
  return JSON.parse(text) as VisitorsAnswer;
}
