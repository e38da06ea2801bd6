/**
 * Writes a realistic, deterministic nginx "combined" access log of a given size: people
 * reading docs pages (each page view followed by its assets, some answered 304), AI
 * assistants fetching pages and Markdown, AI and search crawlers, monitors, scanners
 * hitting missing paths, and the odd line a real server writes that is not a request.
 * The same seed and size always give the same bytes.
 *
 *   npx tsx bench/generate-access-log.ts OUT_FILE SIZE_MB [--gzip] [--seed N]
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { createGzip } from 'node:zlib';
import type { Writable } from 'node:stream';
import { createSeededRandom } from './lib/seeded-random.js';

export interface GenerateAccessLogOptions {
  file: string;
  /** Uncompressed size to reach; the last line may overshoot it by one line. */
  sizeBytes: number;
  seed?: number;
  gzip?: boolean;
  /** Time of the first line, UTC ms. */
  startTime?: number;
}

export interface GeneratedAccessLog {
  file: string;
  bytes: number;
  lines: number;
}

const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
];
const AI_ASSISTANTS = [
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
  'claude-code/1.0.83',
  'axios/1.7.9',
];
const AI_CRAWLERS = [
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  'CCBot/2.0 (https://commoncrawl.org/faq/)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
  'Mozilla/5.0 (compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)',
];
const CRAWLERS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
  'Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)',
  'curl/8.5.0',
  'python-requests/2.32.3',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
  '-',
];
const SECTIONS = ['getting-started', 'guides', 'reference', 'api-reference', 'concepts', 'tutorials', 'changelog', 'integrations'];
const TOPICS = [
  'installation',
  'quickstart',
  'authentication',
  'webhooks',
  'rate-limits',
  'pagination',
  'errors',
  'sdk',
  'cli',
  'deploy',
  'configuration',
  'migrating-from-v1',
  'search',
  'analytics',
  'theming',
  'components',
  'versioning',
  'localization',
  'self-hosting',
  'faq',
  'troubleshooting',
  'security',
  'permissions',
  'teams',
  'billing',
];
const ASSETS = [
  '/_next/static/chunks/main-3f9a1c2b.js',
  '/_next/static/chunks/pages/_app-8d7e6f5a.js',
  '/_next/static/css/4c1d2e3f.css',
  '/assets/fonts/inter-var.woff2',
  '/assets/images/logo.svg',
  '/favicon.ico',
  '/assets/js/search-index.json',
  '/images/diagrams/architecture.png',
  '/_next/static/media/hero.webp',
];
const SCANS = ['/wp-login.php', '/.env', '/xmlrpc.php', '/admin/config.php', '/.git/config', '/phpmyadmin/index.php'];
const REFERRERS = [
  '-',
  '-',
  'https://www.google.com/',
  'https://docs.example.com/docs/guides/quickstart',
  'https://github.com/example/sdk',
  'https://chatgpt.com/',
];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

class TrafficModel {
  private readonly pick = <T>(items: readonly T[]): T => items[Math.floor(this.random() * items.length)] as T;
  private time: number;

  constructor(
    private readonly random: () => number,
    startTime: number,
  ) {
    this.time = startTime;
  }

  /** One burst of lines: a page view with its assets, a crawler fetch, a scan, … */
  nextBurst(): string[] {
    this.time += Math.floor(this.random() * 400);
    const roll = this.random();
    if (roll < 0.55) return this.browserVisit();
    if (roll < 0.65) return [this.line(this.ip(), this.pick(AI_ASSISTANTS), 'GET', this.aiTarget(), 200, '-')];
    if (roll < 0.78) return [this.line(this.ip(), this.pick(AI_CRAWLERS), 'GET', this.aiTarget(), this.random() < 0.9 ? 200 : 404, '-')];
    if (roll < 0.93) return [this.line(this.ip(), this.pick(CRAWLERS), this.random() < 0.2 ? 'HEAD' : 'GET', this.page(), 200, '-')];
    if (roll < 0.98) return [this.line(this.ip(), this.pick(CRAWLERS), 'GET', this.pick(SCANS), 404, '-')];
    if (roll < 0.995) return [this.line(this.ip(), this.pick(BROWSERS), 'POST', '/api/search?q=webhooks', 200, this.page())];
    // What a server logs for a TLS handshake sent to its HTTP port: not a request at all.
    return [`${this.ip()} - - [${this.clfTime()}] "\\x16\\x03\\x01\\x00\\xF1\\x01" 400 157 "-" "-"`];
  }

  private browserVisit(): string[] {
    const ip = this.ip();
    const agent = this.pick(BROWSERS);
    const page = this.page();
    const lines = [this.line(ip, agent, 'GET', page, this.random() < 0.05 ? 301 : 200, this.pick(REFERRERS))];
    const assetCount = Math.floor(this.random() * 6);
    for (let index = 0; index < assetCount; index++) {
      this.time += Math.floor(this.random() * 30);
      lines.push(this.line(ip, agent, 'GET', this.pick(ASSETS), this.random() < 0.4 ? 304 : 200, `https://docs.example.com${page}`));
    }
    return lines;
  }

  private page(): string {
    const roll = this.random();
    if (roll < 0.05) return '/';
    const path = `/docs/${this.pick(SECTIONS)}/${this.pick(TOPICS)}`;
    if (roll < 0.15) return `${path}?utm_source=newsletter&ref=${Math.floor(this.random() * 1000)}`;
    if (roll < 0.2) return `${path}#${this.pick(TOPICS)}`;
    return path;
  }

  private aiTarget(): string {
    const roll = this.random();
    if (roll < 0.1) return '/llms.txt';
    if (roll < 0.4) return `${this.page().replace(/[?#].*$/, '')}.md`;
    return this.page();
  }

  private ip(): string {
    const value = Math.floor(this.random() * 50_000);
    if (value % 10 === 0) return `2001:db8:${(value % 65536).toString(16)}::${(value % 251).toString(16)}`;
    return `${10 + (value % 200)}.${(value >> 3) % 256}.${(value >> 7) % 256}.${(value % 254) + 1}`;
  }

  private line(ip: string, agent: string, method: string, target: string, status: number, referrer: string): string {
    const bytes = status === 304 ? 0 : 500 + Math.floor(this.random() * 40_000);
    return `${ip} - - [${this.clfTime()}] "${method} ${target} HTTP/1.1" ${status} ${bytes} "${referrer}" "${agent}"`;
  }

  /** nginx's $time_local, written in a +01:00 zone. */
  private clfTime(): string {
    const local = new Date(this.time + 3_600_000);
    const two = (value: number): string => String(value).padStart(2, '0');
    return `${two(local.getUTCDate())}/${MONTHS[local.getUTCMonth()]}/${local.getUTCFullYear()}:${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())} +0100`;
  }
}

export async function generateAccessLog(options: GenerateAccessLogOptions): Promise<GeneratedAccessLog> {
  const model = new TrafficModel(createSeededRandom(options.seed ?? 1), options.startTime ?? Date.UTC(2025, 0, 6));
  await mkdir(dirname(options.file), { recursive: true });
  // Written under a temporary name, so an interrupted run never leaves a short file behind under the real one.
  const partial = `${options.file}.partial`;
  const fileStream = createWriteStream(partial);
  const gzip = options.gzip ? createGzip() : undefined;
  if (gzip) gzip.pipe(fileStream);
  const output: Writable = gzip ?? fileStream;

  let bytes = 0;
  let lines = 0;
  let chunk = '';
  while (bytes < options.sizeBytes) {
    for (const line of model.nextBurst()) {
      chunk += `${line}\n`;
      bytes += Buffer.byteLength(line) + 1;
      lines++;
      if (bytes >= options.sizeBytes) break;
    }
    if (chunk.length >= 256 * 1024) {
      if (!output.write(chunk)) await once(output, 'drain');
      chunk = '';
    }
  }
  if (chunk !== '') output.write(chunk);
  output.end();
  await once(fileStream, 'close');
  await rename(partial, options.file);
  return { file: options.file, bytes, lines };
}

async function main(argv: string[]): Promise<void> {
  const positional = argv.filter((argument, index) => !argument.startsWith('--') && argv[index - 1] !== '--seed');
  const [file, sizeMb] = positional;
  const seedIndex = argv.indexOf('--seed');
  if (file === undefined || sizeMb === undefined || !(Number(sizeMb) > 0)) {
    process.stderr.write('usage: npx tsx bench/generate-access-log.ts OUT_FILE SIZE_MB [--gzip] [--seed N]\n');
    process.exitCode = 2;
    return;
  }
  const result = await generateAccessLog({
    file: resolve(file),
    sizeBytes: Math.round(Number(sizeMb) * 1024 * 1024),
    gzip: argv.includes('--gzip'),
    seed: seedIndex >= 0 ? Number(argv[seedIndex + 1]) : 1,
  });
  process.stdout.write(`wrote ${result.lines} lines (${result.bytes} bytes uncompressed) to ${result.file}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main(process.argv.slice(2));
}
