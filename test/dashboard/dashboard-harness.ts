import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createLogger } from '../../src/app/logger.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { Dialect } from '../../src/db/database.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { freePort } from '../helpers/free-port.js';

export const CHROMIUM = '/usr/bin/chromium';

/** The instance secret: the setup token is derived from it. Fixed, so runs are repeatable. */
const SECRET = 'dashboard-test-secret-dashboard-test-secret-0123';

export interface DashboardServer {
  /** http://127.0.0.1:PORT, also the server's DOCWRIGHT_PUBLIC_URL. */
  url: string;
  server: RunningServer;
  dataDir: string;
  /** Every log line the server wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * A real `docwright serve` in this process: the dashboard, the API and a job worker on a
 * free loopback port, with its log captured (the setup token is printed there).
 */
export async function startDashboardServer(options: { dialect?: Dialect; environment?: Record<string, string> } = {}): Promise<DashboardServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'docwright-dashboard-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const environment: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DOCWRIGHT_DATA_DIR: dataDir,
    DOCWRIGHT_SECRET: SECRET,
    DOCWRIGHT_PUBLIC_URL: url,
    DOCWRIGHT_LOG_LEVEL: 'info',
    ...options.environment,
  };
  if (options.dialect === 'postgres') {
    // Loaded only here: it reads the run's PostgreSQL from vitest, which the screenshot script does not run under.
    const { createEmptyPostgresDatabase } = await import('../helpers/test-database.js');
    environment.DOCWRIGHT_DATABASE_URL = await createEmptyPostgresDatabase();
  }
  const logs: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        try {
          logs.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          logs.push({ msg: line });
        }
      }
      done();
    },
  });
  const config = loadConfig(environment);
  const server = await startServer({ config, logger: createLogger({ level: 'info', destination }), workerOptions: { leaseMs: 10_000, idlePollMs: 200 } });
  return {
    url,
    server,
    dataDir,
    logs,
    async close() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The server's settings for jobs run by the fake model at `modelUrl`: one model call each, no retries. */
export function fakeModelEnvironment(modelUrl: string): Record<string, string> {
  return {
    DOCWRIGHT_MODEL: 'openai-compatible:fake-model',
    DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: modelUrl,
    DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: 'sk-test-provider-secret-123456',
    DOCWRIGHT_MODEL_RETRIES: '0',
  };
}

/** The setup token as the server printed it at start-up (whatever the line's wording). */
export function printedSetupToken(logs: ReadonlyArray<Record<string, unknown>>): string {
  for (const line of logs) {
    const text = JSON.stringify(line);
    if (!/setup/i.test(text)) continue;
    const match = /\b([a-f0-9]{48})\b/.exec(text);
    if (match) return match[1]!;
  }
  throw new Error(`The server printed no setup token; its log: ${logs.map((line) => JSON.stringify(line)).join('\n')}`);
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export interface PageProblems {
  /** Console errors other than failed resource loads (those are the API's 4xx answers the test provoked). */
  consoleErrors: string[];
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
}

/**
 * A fresh browser context (own cookies) and page. Console errors are collected, so a
 * Content-Security-Policy violation ("Refused to …") or an exception fails the test.
 */
export async function openPage(
  browser: Browser,
  baseURL: string,
  options: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({
    baseURL,
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    colorScheme: options.colorScheme ?? 'light',
    reducedMotion: 'reduce',
  });
  const page = await context.newPage();
  const problems: PageProblems = { consoleErrors: [], pageErrors: [] };
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => problems.pageErrors.push(error.message));
  return { context, page, problems };
}

const AXE_SOURCE = readFileSync(join(import.meta.dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's WCAG 2.x A/AA and best-practice rules on the page as it is now; returns the
 * serious and critical violations. axe is evaluated through the DevTools protocol rather
 * than added as an inline <script>: the dashboard's CSP (script-src 'self') refuses inline
 * scripts, which is the point of it.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: Document,
            options: object,
          ): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => JSON.stringify(node.target)),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
