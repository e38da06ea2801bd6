import type { VisitorsAnswer, VisitorsQuestion } from './analytics-visitors-answer.js';
import type { BenchServer } from './lib/docwright-server.js';

/** Docwright's answer to a visitors question, through `GET /v1/analytics/{projectId}/visitors` as any client would ask. */
export async function queryVisitorsOverHttp(server: BenchServer, question: VisitorsQuestion): Promise<VisitorsAnswer> {
  const url = new URL(`${server.url}/v1/analytics/${encodeURIComponent(server.projectId)}/visitors`);
  url.searchParams.set('dateFrom', new Date(question.from).toISOString());
  url.searchParams.set('dateTo', new Date(question.to).toISOString());
  url.searchParams.set('limit', String(question.limit));
  url.searchParams.set('offset', String(question.offset));
  const response = await fetch(url, { headers: { authorization: `Bearer ${server.apiKey}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url.pathname} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as VisitorsAnswer;
}
