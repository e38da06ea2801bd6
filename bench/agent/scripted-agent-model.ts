import { startFakeModelServer, type FakeModelRequest, type FakeModelServer, type FakeReply } from '../../test/fakes/fake-model-server.js';
import type { PlannedStep } from './exploration-plan.js';

export interface ScriptedAgentModel {
  /** Base URL for DOCWRIGHT_ANTHROPIC_BASE_URL. */
  url: string;
  /** Every request received, in order. */
  requests: FakeModelRequest[];
  /** What was answered to request i: the plan step it got (-1: the final answer), and the reply's text as sent. */
  answers: Array<{ step: number; replyText: string }>;
  /** When each request arrived, ms since the epoch. */
  arrivals: number[];
  close(): Promise<void>;
}

/** Fake tool-use ids are `toolu_<callIndex>_<n>` (fake-model-server.ts): the id says which answer a request continues. */
const TOOL_USE_ID = /^toolu_(\d+)_\d+$/;

/** The call index of the newest answer whose tool calls this request carries, or -1. */
function continuedCall(request: FakeModelRequest): number {
  const messages = Array.isArray(request.body['messages']) ? (request.body['messages'] as unknown[]) : [];
  let newest = -1;
  for (const message of messages) {
    const content = (message as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const block of content as Array<{ type?: unknown; id?: unknown }>) {
      if (block.type !== 'tool_use' || typeof block.id !== 'string') continue;
      const match = TOOL_USE_ID.exec(block.id);
      if (match !== null) newest = Math.max(newest, Number(match[1]));
    }
  }
  return newest;
}

/**
 * The fake Anthropic model playing the plan. A request continues the answer whose tool-use
 * ids it carries last, so it gets the next step of the plan: the same answer for a retried
 * request, and the right one even if the agent condensed older steps away (which
 * `toolRounds` would miscount). A request without tools (a wrap-up step) or past the plan
 * gets the final answer.
 */
export async function startScriptedAgentModel(plan: readonly PlannedStep[], finalText: string): Promise<ScriptedAgentModel> {
  const answers: ScriptedAgentModel['answers'] = [];
  const arrivals: number[] = [];
  const server: FakeModelServer = await startFakeModelServer({
    script: (request, callIndex): FakeReply => {
      arrivals[callIndex] = Date.now();
      const previous = continuedCall(request);
      const step = previous === -1 ? 0 : (answers[previous]?.step ?? -2) + 1;
      const planned = step >= 0 && request.toolNames.length > 0 ? plan[step] : undefined;
      if (planned === undefined) {
        answers[callIndex] = { step: -1, replyText: finalText };
        return { text: finalText };
      }
      answers[callIndex] = { step, replyText: JSON.stringify([planned.call]) };
      return { toolCalls: [planned.call] };
    },
  });
  return { url: server.url, requests: server.requests, answers, arrivals, close: () => server.close() };
}
