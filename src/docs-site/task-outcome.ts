/** How a task run in a worker ended. Only `done` carries a result; the others say why there is none. */
export type TaskOutcome<Result> =
  | { status: 'done'; result: Result }
  /** The task failed as a tool fails (a ToolFailure): the message is for the model. */
  | { status: 'failure'; message: string }
  /** It ran longer than its time limit; the worker was stopped. */
  | { status: 'timeout'; timeoutMs: number }
  /** It needed more than the worker's heap limit; the worker died. */
  | { status: 'out-of-memory'; maxHeapMb: number }
  /** A bug or the environment: the worker threw or exited. */
  | { status: 'crashed'; message: string };
