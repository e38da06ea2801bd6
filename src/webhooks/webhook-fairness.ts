import type { Executor } from '../db/transaction.js';

/**
 * Deliveries of one project under way at once, over all processes. Below the default
 * per-process concurrency (4), so a project whose receivers hang holds at most half of a
 * process's slots and the other projects keep theirs (docs/webhooks.md, "Delivery order
 * and fairness").
 */
export const PROJECT_CONCURRENCY = 2;

/** Which projects a message may come from: ones with no delivery under way, or any below the cap. */
export type ProjectChoice = 'idle' | 'below-cap';

/**
 * The pending messages a worker may claim, due or not: not held by a live claim, of an
 * endpoint with no delivery under way (one at a time per endpoint, so its messages go in
 * order), of a project below PROJECT_CONCURRENCY. Exact only while the caller holds the
 * claim lock (see WebhookOutbox.claim). A live claim is `locked_until >= now`; `finish`
 * clears it, and only pending messages carry one, so the (status, next_attempt_at) index
 * keeps the reads of busy endpoints to the pending messages.
 */
export function eligibleMessages(executor: Executor, now: number, projects: ProjectChoice) {
  const underWay = () => executor.selectFrom('webhook_messages').where('status', '=', 'pending').where('locked_until', '>=', now);
  const busyProjects =
    projects === 'idle'
      ? underWay().select('project_id')
      : underWay()
          .select('project_id')
          .groupBy('project_id')
          .having((eb) => eb.fn.countAll(), '>=', PROJECT_CONCURRENCY);
  return executor
    .selectFrom('webhook_messages')
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .where('endpoint_id', 'not in', underWay().select('endpoint_id'))
    .where('project_id', 'not in', busyProjects);
}
