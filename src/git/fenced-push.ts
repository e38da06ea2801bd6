import { isDocwrightError } from '../core/errors.js';
import { AGENT_EMAIL, type Workspace } from './workspace.js';

/**
 * Pushes a turn's commit to the job's branch, fenced as well as git allows
 * (docs/operations.md, "Fencing and exactly one pull request per job"):
 * 1. `fence` checks in the database, right before the push, that the run still holds the
 *    job's lease (it throws `lease_lost` otherwise);
 * 2. the push names the commit it expects the branch to have (`Workspace.push`, git's
 *    --force-with-lease), so a run that lost its lease after its check cannot overwrite the
 *    push of the run that took the job over: the remote refuses it under its ref lock.
 * 3. The other way round, a stale run may have pushed in the moment between its check and
 *    losing its lease. When the branch moved since this clone and the tip is exactly that —
 *    one agent commit on top of the commit this run started from — the run that holds the
 *    lease checks again and replaces it. Anything else that moved the branch (a person's
 *    push) is kept, and the turn fails with `git_push_rejected`.
 */
export async function pushFenced(workspace: Workspace, fence: () => Promise<void>): Promise<string> {
  await fence();
  try {
    return await workspace.push();
  } catch (error) {
    if (!isDocwrightError(error) || error.code !== 'git_push_rejected') throw error;
    const tip = await workspace.fetchBranchTip();
    const staleRun = tip !== null && tip.authorEmail === AGENT_EMAIL && tip.parents.length === 1 && tip.parents[0] === workspace.startCommit;
    if (!staleRun) throw error;
    await fence();
    return workspace.push({ expected: tip.commit });
  }
}
