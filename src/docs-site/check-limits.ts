/** The caps of one docs check; the agent's come from its tool limits, the CLI's from its defaults. */
export interface CheckLimits {
  /** Pages checked per site snapshot; more are reported as unchecked. */
  maxPages: number;
  /** Largest page that is parsed; a larger one is reported, not parsed. */
  maxPageBytes: number;
  /** Largest configuration, `$ref` file or OpenAPI spec that is read. */
  maxConfigBytes: number;
  /** Per page or configuration, in a worker; a page that needs longer is reported. */
  pageTimeoutMs: number;
  /** Most problems one page contributes. */
  maxProblemsPerPage: number;
}
