/**
 * The visitors query of a live site: after the load and its fold, a few thousand new hits
 * arrive on the question's last day, as today's traffic does on a real site, and the same
 * question is timed again at once. The folded p50 alone is the best case: a live site's
 * usual range holds a day with hits newer than any fold.
 */
import type { VisitorsAnswer, VisitorsQuestion } from './analytics-visitors-answer.js';
import { queryVisitorsOverHttp } from './analytics-http-query.js';
import type { BenchServer } from './lib/docwright-server.js';
import { timeRepeated, type RepeatedTiming } from './lib/timing.js';

export const LIVE_HITS = 2_000;
const DAY_MS = 86_400_000;

/** Posts LIVE_HITS new hits (1,000 new visitors; a fifth on 4 new pages, the rest on /docs/quickstart) from noon of the question's last day. */
async function postLiveHits(server: BenchServer, question: VisitorsQuestion): Promise<void> {
  const noon = Math.floor((question.to - 1) / DAY_MS) * DAY_MS + DAY_MS / 2;
  const events = Array.from({ length: LIVE_HITS }, (_, index) => ({
    path: index % 5 === 0 ? `/live/page-${index % 20}` : `/docs/quickstart`,
    visitorId: `live-${index % 1_000}`,
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    timestamp: new Date(noon + index * 1_000).toISOString(),
  }));
  // Two requests: a batch holds at most 1,000 events.
  for (let start = 0; start < events.length; start += 1_000) {
    const response = await fetch(`${server.url}/v1/analytics/${encodeURIComponent(server.projectId)}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events: events.slice(start, start + 1_000) }),
    });
    const body = (await response.json()) as { accepted?: number };
    if (!response.ok || body.accepted !== Math.min(1_000, events.length - start))
      throw new Error(`the live hits were not all accepted: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
}

/**
 * Times the question right after the live hits. Every answer must count the 1,000 new
 * visitors on top of the folded answer (`before`): they are new, so the total grows by
 * exactly that; a report that missed the fresh day, or counted a visitor twice, fails.
 */
export async function timeLiveSite(
  server: BenchServer,
  question: VisitorsQuestion,
  before: VisitorsAnswer,
  iterations: number,
): Promise<RepeatedTiming<VisitorsAnswer>> {
  await postLiveHits(server, question);
  const expected = before.totals.total + 1_000;
  return timeRepeated(
    async () => {
      const answer = await queryVisitorsOverHttp(server, question);
      if (answer.totals.total !== expected) throw new Error(`the live site's answer counts ${answer.totals.total} visitors, not ${expected}`);
      return answer;
    },
    { warmup: 0, iterations },
  );
}
