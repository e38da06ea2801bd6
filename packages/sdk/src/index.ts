export { createDocwrightClient, docwrightFetch, ok, type DocwrightClient, type DocwrightClientOptions } from './client.js';
export { DocwrightApiError, DocwrightNetworkError, retryAfterSeconds, type Problem } from './errors.js';
export { abortableSleep, retryingFetch, type RetryOptions } from './retry.js';
export type { components, operations, paths } from './schema.js';
import type { components } from './schema.js';

export type AgentJob = components['schemas']['AgentJob'];
export type AgentJobTurn = components['schemas']['AgentJobTurn'];
export type Visitors = components['schemas']['Visitors'];
