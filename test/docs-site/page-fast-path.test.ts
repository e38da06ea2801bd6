import { describe, expect, it } from 'vitest';
import { pageText } from '../../bench/docs-site-pages.js';
import { createSeededRandom } from '../../bench/lib/seeded-random.js';
import { splitFrontmatter } from '../../src/docs-site/frontmatter.js';
import { prepareSource } from '../../src/docs-site/mintlify-source.js';
import { treeNodes } from '../../src/docs-site/page-analysis.js';
import { collectAnchors } from '../../src/docs-site/page-anchors.js';
import { fastPageNodes } from '../../src/docs-site/page-fast-path.js';
import { collectLinks } from '../../src/docs-site/page-links.js';
import { parsePage } from '../../src/docs-site/page-parser.js';

type Format = 'md' | 'mdx';

interface Comparison {
  /** Whether the fast path answered (else the full parser does, by design). */
  fast: boolean;
  full: unknown;
  fastResult: unknown;
}

/** The links and anchors of a page, from the full syntax tree and from the fast path. */
function compare(text: string, format: Format): Comparison {
  const { bodyStart } = splitFrontmatter(text);
  const prepared = prepareSource(text, bodyStart, format);
  const parsed = parsePage(`page.${format}`, prepared.source, format);
  const full = 'problem' in parsed ? { problem: parsed.problem.message } : facts(treeNodes(parsed.tree));
  const nodes = fastPageNodes(prepared.source, format);
  return { fast: nodes !== undefined, full, fastResult: nodes === undefined ? undefined : facts(nodes) };

  function facts(nodes: Parameters<typeof collectLinks>[0]): unknown {
    return { links: collectLinks(nodes, text), anchors: collectAnchors(nodes, text, prepared.customIds) };
  }
}

/** Whenever the fast path answers, it answers what the full parser does (a page it cannot read exactly goes to the full parser). */
function expectSame(text: string, format: Format): Comparison {
  const comparison = compare(text, format);
  if (comparison.fast) expect({ format, text, result: comparison.fastResult }).toEqual({ format, text, result: comparison.full });
  return comparison;
}

// Pieces of Markdown and MDX that exercise what the fast path reads or must refuse.
const PIECES = [
  '[a](/x)',
  '[a *b*](/y "t")',
  '[a\n](/z)',
  '[a\n  b](../c.md)',
  '[](/empty)',
  '[a](<./s p.md>)',
  '[a](/x&amp;y)',
  '[a](/x\\_y)',
  '[a `c` $m$](/code)',
  '[a ![i](/i.png)](/img-last)',
  '[a  \nb](/break)',
  '[a\\\nb](/escape-break)',
  '[**a**](/strong-last)',
  '[ref]',
  '[a][ref]',
  '[a][]',
  '[ref]: /def',
  '[ref]: <./d e.md> "t"',
  '[other]:\n  /def2',
  '![img](/i.png)',
  '![a [b](/c)](/d)',
  '[![img](/i.png)](/wrap)',
  '<https://x.com/a>',
  '<a@b.co>',
  'https://bare.example.com/p',
  'www.example.com',
  'mail a@b.co',
  'a&#64;b.co',
  'https&#58;//x.y',
  '\\@',
  'x\\:y',
  '&amp; &copy; &#x41; &bogus;',
  '# Heading',
  '## Title {#custom}',
  '### Mixed *emph* `code` $m$ &amp; \\* end',
  'Setext\n===',
  'Setext two\nlines\n---',
  '## [link in heading](/h)',
  '## ![alt *x*](/i.png) pic',
  '## <Badge id="b1">new</Badge> tag',
  '## {expr} heading',
  '## a <b>html</b> c',
  '# Same',
  '# Same',
  '<Note>',
  '</Note>',
  '<Card href="/card" title="x">',
  '</Card>',
  '<Card href={"/const"} />',
  '<Card href={\'/q\'} id="c2"/>',
  '<a href="/html">x</a>',
  '<div id="d1">',
  '</div>',
  '<Tabs>\n<Tab title="x">\ncontent [t](/tab)\n</Tab>\n</Tabs>',
  '<X a="1&amp;2" href="/amp" />',
  '<X\n  href="/multi"\n/>',
  '<X href="/l1\nl2" />',
  '<X href={\n"/e"\n} />',
  '<x.y:z href="/ns" />',
  '<>fragment [f](/frag)</>',
  '{1 + 1}',
  '{/* comment */}',
  '<!-- comment [c](/comment) -->',
  '$$\nx^2\n$$',
  '$a$',
  '~~del~~',
  '~one~',
  '| a | b |\n| - | - |\n| [c](/cell) | d |',
  'a | b\n- | -\n[e](/cell2) | f',
  '[^1]',
  '[^1]: note [fn](/fn)',
  '- [ ] task [t](/task)',
  '- [x] done',
  '> quote [q](/quote)',
  '> ## quoted heading',
  '```js\nconst a = "[x](/no)";\n```',
  '`[x](/no)`',
  '    indented [i](/ind)',
  '*a* **b** _c_ __d__',
  'line  \nbreak',
  'line\\\nbreak',
  '\t[tab](/tab)',
  'a\r\nb [crlf](/crlf)\r\n',
  '<b>bold</b>',
  '<img src="x" id="img1"/>',
  'export const x = 1',
  'import A from "a"',
  '- <Note>\n  a\n  </Note>',
  '- <Note>\n- </Note>',
  '> <Note>\n> x\n> </Note>',
  '<Note>*a</Note>*',
  '*<Note>a*</Note>',
  '<a><b></a></b>',
  '</Close>',
  '<Open>',
  'a <Inline>b</Inline> c',
  'a <Inline>b\n\nc</Inline>',
  '```',
  '$$',
  '{',
  '}',
  '<',
  '[',
  ']',
  '(',
  ')',
  '!',
  '*',
  '_',
  '`',
  '\\',
  '&',
  '#',
  '~',
  '|',
  ':',
  '/',
  '@',
  '.',
  'w',
  'www',
  '-',
  'https://in.code/`x`',
  '`https://in.code`',
  '[a](https://dest.example.com) b',
  '[c@d](/at-in-label)',
  '<Card title="a@b.co" href="/at" />',
  '## a\tb',
  '#\tTab heading',
  '[a\tb](/t)',
  '- [a\n  b](/li)',
  '> [a\n> b](/bq)',
  '## a &#9; b',
  '[a](/x "title\nline")',
  '<Card\n\thref="/tab"/>',
  'Setext  \nbreak\n===',
  'Setext\\\nbreak\n---',
  '[a](/x)[b](/y)',
  '![](/e.png)',
  '[x]: /d\n[x]: /dup',
  '<Card href="/a" href="/b" />',
  '## <Card id={"x"} /> id',
  '&#0;',
  '\u00a0[nb](/nb)',
  '[ä](/ü)',
  '[a](/x "t") [b](</y>)',
  '## `a\nb`',
  '## $a\nb$',
  '# *a\nb*',
  '[`a`](/code-last)',
  '[a <Inline>b</Inline>](/jsx-last)',
  '[a {1}](/expr-last)',
  '[a <b>c</b>](/html-last)',
  '[a [b](/inner)](/outer)',
];
const SEPARATORS = ['\n', '\n\n', ' ', '\n  ', '\n> ', '\n- ', '\n1. ', '\t', '\n\n    ', ''];

function randomPage(random: () => number, pieces: number): string {
  const parts: string[] = [];
  for (let index = 0; index < pieces; index += 1) {
    parts.push(PIECES[Math.floor(random() * PIECES.length)] ?? '', SEPARATORS[Math.floor(random() * SEPARATORS.length)] ?? '');
  }
  return parts.join('');
}

describe('the fast path reads pages exactly as the full parser', () => {
  it('each piece alone, in Markdown and MDX', () => {
    for (const piece of PIECES) for (const format of ['md', 'mdx'] as const) expectSame(piece, format);
  });

  it('reads token text as from-markdown does: a tab a token starts inside, NUL', () => {
    // The HTML's second line starts inside the tab's columns: from-markdown reads them as spaces.
    expect(expectSame('<Card\n\thref="/tab"/>\n---', 'md').fast).toBe(true);
    expect(expectSame('# a\u0000b\n\n[x\u0000](/nul)', 'mdx').fast).toBe(true);
  });

  it('random pages of pieces, in Markdown and MDX', () => {
    const random = createSeededRandom(20261124);
    let fast = 0;
    for (let page = 0; page < 1500; page += 1) {
      const text = randomPage(random, 2 + Math.floor(random() * 12));
      for (const format of ['md', 'mdx'] as const) if (expectSame(text, format).fast) fast += 1;
    }
    // Most random pages hold some construct the fast path refuses; enough do not to mean something.
    expect(fast).toBeGreaterThan(600);
  });

  it('takes the fast path for every page the benchmark generates, with the same answer', () => {
    const random = createSeededRandom(7);
    for (let page = 0; page < 100; page += 1) {
      const links = Array.from({ length: 20 }, (_, index) => ({
        written: index % 3 === 0 ? `../guides/page-${index}` : `/guides/page-${index}#usage`,
        card: index % 7 === 0,
      }));
      const text = pageText({ title: `Page ${page}`, links, markers: [], imageCount: 1 + (page % 3), targetBytes: 3000 + page * 30, random });
      expect(expectSame(text, 'mdx').fast).toBe(true);
    }
  });

  it('leaves syntax errors, and what from-markdown would reject, to the full parser', () => {
    for (const text of [
      '<Note>\nopen',
      '</Note>',
      '<a>\n</b>',
      '<Note>*a</Note>*',
      '- <Note>\n- </Note>',
      '{1 +}',
      '<a b="1">x</a c="2">',
      'a <b>c\n\nd</b>',
    ]) {
      const comparison = compare(text, 'mdx');
      expect(comparison.fast).toBe(false);
      expect(comparison.full).toHaveProperty('problem');
    }
  });

  it('leaves deeply nested pages to the full parser, whose recursion may give up on them', () => {
    for (const text of [
      `${'<div>'.repeat(300)}x${'</div>'.repeat(300)}`,
      Array.from({ length: 300 }, (_, depth) => `${'  '.repeat(depth)}- item`).join('\n'),
      '>'.repeat(300),
    ]) {
      expect(compare(text, 'mdx').fast).toBe(false);
    }
    expect(expectSame(`${'<div>'.repeat(50)}[x](/deep)${'</div>'.repeat(50)}`, 'mdx').fast).toBe(true);
  });

  it('leaves pages where a GFM autolink literal could be made to the full parser', () => {
    for (const text of ['see https://example.com/a', 'www.example.com', 'write to a@b.co', 'a&#64;b.co', 'https&#58;//x.y', 'a\\@b.co']) {
      expect(compare(text, 'mdx').fast).toBe(false);
    }
    // In code, link destinations and attribute values no autolink is made.
    expect(expectSame('`https://a.b` [x](https://c.d) <Card title="e@f.gh" />\n\n```\nwww.x.y\n```', 'mdx').fast).toBe(true);
  });
});
