import { LRUCache } from 'lru-cache';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

/** Characters of a description that are rendered; the local forge stores at most 60,000. */
export const MAX_MARKDOWN_CHARACTERS = 100_000;

/** Images are not a construct here: `![alt](url)` reads as `!` and a link to `url`. */
const NO_IMAGES = { disable: { null: ['labelStartImage'] } };

/**
 * A pull request's description as HTML that is safe to insert into the dashboard's page.
 *
 * The description holds text the model wrote and prompts people typed, both of which
 * repository content can steer, so it is hostile input. micromark's defaults do the
 * sanitising: raw HTML (`<script>`, `<img onerror>`, comments) is escaped and shown as
 * text (`allowDangerousHtml` stays off), and link destinations other than http(s), mailto,
 * irc(s) and xmpp — `javascript:`, `data:`, `vbscript:` — become empty (`allowDangerousProtocol`
 * stays off). Images are turned off as well: the browser would load a remote image by
 * itself, which tells its host who read the pull request and when, and can carry data out
 * in its URL; as links they load nothing until someone clicks.
 */
export function renderPullRequestMarkdown(markdown: string): string {
  const text = markdown.length > MAX_MARKDOWN_CHARACTERS ? `${markdown.slice(0, MAX_MARKDOWN_CHARACTERS)}\n\n…` : markdown;
  let html = rendered.get(text);
  if (html === undefined) {
    html = micromark(text, { extensions: [gfm(), NO_IMAGES], htmlExtensions: [gfmHtml()] });
    rendered.set(text, html);
  }
  return html;
}

/** Descriptions change only when a turn updates them; views of one pull request share one rendering. */
const rendered = new LRUCache<string, string>({ max: 512, maxSize: 32 * 1024 * 1024, sizeCalculation: (html, key) => Math.max(1, html.length + key.length) });
