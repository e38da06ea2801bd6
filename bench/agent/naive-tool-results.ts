import type { ToolExecutionOptions } from 'ai';
import { createDocsToolset } from '../../src/agent/tools/docs-toolset.js';
import type { PlannedStep } from './exploration-plan.js';

/** Larger than anything the plan reads: no result is cut. */
const UNCAPPED_RESULT_BYTES = 64 * 1024 * 1024;
/** Steps that change the workspace or check it: their results are small and sent whole. */
const SKIPPED = new Set(['edit_file', 'write_file', 'delete_file', 'move_file', 'check_docs']);

/**
 * What each reading step's tool returns without the one-result cap, as JSON text: the
 * agent's own tools on the repository as cloned, with `maxResultBytes` raised (an existing
 * limit of the toolset, nothing added for the benchmark). The naive conversation counts
 * these where the agent sent less. Reads after the edit see the base, a few characters off.
 */
export async function naiveToolResults(workspace: string, plan: readonly PlannedStep[]): Promise<Array<string | undefined>> {
  const toolset = createDocsToolset({ workspace, limits: { maxResultBytes: UNCAPPED_RESULT_BYTES } });
  const options: ToolExecutionOptions = { toolCallId: 'naive', messages: [] };
  try {
    const results: Array<string | undefined> = [];
    for (const step of plan) {
      const execute = toolset.tools[step.call.name]?.execute;
      if (SKIPPED.has(step.call.name) || execute === undefined) {
        results.push(undefined);
        continue;
      }
      results.push(JSON.stringify(await (execute(step.call.arguments, options) as Promise<unknown>)));
    }
    return results;
  } finally {
    await toolset.close();
  }
}
