import { describe, expect, test } from 'vitest';
import { analyzePage } from '../../src/docs-site/page-analysis.js';

const lines = (...parts: string[]): string => parts.join('\n');

describe('analyzePage: syntax errors keep file and line', () => {
  test('a mismatched closing tag is reported at its line, after the frontmatter', async () => {
    const { problems } = await analyzePage('broken.mdx', '---\ntitle: Broken\n---\n\n# Heading\n\n<Note>\nUnclosed note\n</Warning>\n');
    expect(problems).toEqual([
      { path: 'broken.mdx', line: 9, kind: 'mdx-syntax', message: expect.stringMatching(/^MDX syntax error: Unexpected closing tag `<\/Warning>`/) },
    ]);
  });

  test('an unclosed Mintlify component is reported at its opening tag', async () => {
    const { problems } = await analyzePage('note.mdx', 'Intro\n\n<Note>\nnever closed\n');
    expect(problems).toEqual([
      { path: 'note.mdx', line: 3, kind: 'mdx-syntax', message: expect.stringMatching(/^MDX syntax error: Expected a closing tag for `<Note>`/) },
    ]);
  });

  test('a closed Mintlify component is plain JSX', async () => {
    const page = lines(
      '<Tabs>',
      '  <Tab title="One">',
      '    <Card title="A" href="/a">x</Card>',
      '  </Tab>',
      '</Tabs>',
      '',
      '<CodeGroup>',
      '```js a.js',
      'x',
      '```',
      '</CodeGroup>',
    );
    expect((await analyzePage('tabs.mdx', page)).problems).toEqual([]);
  });

  test('a bad expression is reported at its line', async () => {
    const { problems } = await analyzePage('expression.mdx', 'Text\n\n{1 +}\n');
    expect(problems).toEqual([
      { path: 'expression.mdx', line: 3, kind: 'mdx-syntax', message: expect.stringMatching(/^MDX syntax error: Could not parse expression/) },
    ]);
  });

  test('frontmatter braces are not MDX, and frontmatter problems still come first', async () => {
    expect((await analyzePage('braces.mdx', '---\ntitle: Uses {braces} freely\n---\n\n# Fine\n')).problems).toEqual([]);
    const { problems } = await analyzePage('scalar.mdx', '---\njust a string\n---\n\n{1 +}\n');
    expect(problems.map((problem) => [problem.kind, problem.line])).toEqual([
      ['frontmatter', 2],
      ['mdx-syntax', 5],
    ]);
  });

  test('nesting too deep for the parser is a check-limit problem, not a crash', async () => {
    const { problems } = await analyzePage('deep.mdx', '<A>'.repeat(20_000));
    expect(problems).toHaveLength(1);
    expect(['check-limit', 'mdx-syntax']).toContain(problems[0]?.kind);
  });
});

describe('analyzePage: what Mintlify accepts beyond MDX', () => {
  test('LaTeX braces are not expressions, inline or in blocks; an unclosed $$ block runs to the end', async () => {
    expect((await analyzePage('math.mdx', 'Inline $x^{2} + \\frac{a}{b}$ here.\n\n$$\n\\sum_{i=1}^{n} {x_i}\n$$\n')).problems).toEqual([]);
    expect((await analyzePage('open-math.mdx', 'Intro\n\n$$\n\\frac{1}{2} {1 +}\n')).problems).toEqual([]);
  });

  test('braces outside math are still expressions', async () => {
    const { problems } = await analyzePage('math-then-expression.mdx', 'Inline $x^{2}$.\n\n{1 +}\n');
    expect(problems.map((problem) => problem.line)).toEqual([3]);
  });

  test('custom heading ids parse and become the anchor; other headings get GitHub slugs', async () => {
    const page = lines(
      '# Getting Started {#start}',
      '',
      '## Getting Started',
      '',
      '## Getting Started',
      '',
      '### What’s new in v2.0?',
      '',
      '> ## Quoted {#quoted}',
    );
    const analysis = await analyzePage('ids.mdx', page);
    expect(analysis.problems).toEqual([]);
    expect(analysis.anchors).toEqual(['start', 'getting-started', 'getting-started-1', 'whats-new-in-v20', 'quoted']);
  });

  test('a {#id} that is not at the end of a heading is still an expression error', async () => {
    const { problems } = await analyzePage('not-heading.mdx', 'Text {#id} here\n');
    expect(problems.map((problem) => [problem.kind, problem.line])).toEqual([['mdx-syntax', 1]]);
  });

  test('HTML comments are accepted in MDX, and links inside them are not links', async () => {
    const analysis = await analyzePage(
      'comments.mdx',
      lines('<!-- [old](/old) {x} -->', '', 'Text <!-- inline --> and [new](/new).', '', '<!--', 'multi', '-->'),
    );
    expect(analysis.problems).toEqual([]);
    expect(analysis.links.map((link) => link.target)).toEqual(['/new']);
  });

  test('an unclosed HTML comment is still an error', async () => {
    const { problems } = await analyzePage('open-comment.mdx', 'Text\n\n<!-- never closed\n');
    expect(problems.map((problem) => [problem.kind, problem.line])).toEqual([['mdx-syntax', 3]]);
  });

  test('Markdown pages: HTML is HTML, braces are text, custom ids still apply', async () => {
    const analysis = await analyzePage('legacy.md', lines('## Setup {#setup-id}', '', '{1 +} <a href="/old" id="top">x</a> <!-- <a href="/hidden"> -->'));
    expect(analysis.problems).toEqual([]);
    expect(analysis.anchors).toEqual(['setup-id', 'top']);
    expect(analysis.links.map((link) => link.target)).toEqual(['/old']);
  });
});

describe('analyzePage: links', () => {
  test('links in code, inline code and math are not links', async () => {
    const page = lines('`[a](/inline)` $[b](/math)$', '', '```md', '[c](/fenced)', '```', '', '$$', '[d](/block-math)', '$$', '', '[e](/real)');
    expect((await analyzePage('code.mdx', page)).links.map((link) => link.target)).toEqual(['/real']);
  });

  test('every link of a mixed page has its line and the exact offsets of its URL', async () => {
    const page = lines(
      '---', // 1
      'title: "Ünïcode ✓ 🚀"', // 2
      '---', // 3
      '# Links 🚀', // 4
      '', // 5
      'See [a](/guides/a "Title") and [b](<../with space.mdx>) and [c](./c#part).', // 6
      'Literal https://example.com/x and [nested **bold**](/nested).', // 7
      '', // 8
      '<Card title="Card" href="/card">Go</Card> <Card href=\'/single\' />', // 9
      '<Card', // 10
      '  href="/multi-line"', // 11
      '/>', // 12
      '', // 13
      '[ref]: ./defined.mdx "Defined"', // 14
      '[angle]: <./angle target.mdx>', // 15
      '[later]:', // 16
      '  /on-next-line', // 17
      '', // 18
      '> Quoted [q](/quoted)', // 19
    );
    const { problems, links } = await analyzePage('mixed.mdx', page);
    expect(problems).toEqual([]);
    expect(links.map((link) => [link.target, link.line])).toEqual([
      ['/guides/a', 6],
      ['../with space.mdx', 6],
      ['./c#part', 6],
      ['https://example.com/x', 7],
      ['/nested', 7],
      ['/card', 9],
      ['/single', 9],
      ['/multi-line', 11],
      ['./defined.mdx', 14],
      ['./angle target.mdx', 15],
      ['/on-next-line', 16],
      ['/quoted', 19],
    ]);
    for (const link of links) expect(page.slice(link.start, link.end)).toBe(link.target);
  });

  test('HTML href in Markdown pages has exact offsets, also in block quotes', async () => {
    const page = 'Intro\n\n> <a\n> href="/quoted" class="x">q</a>\n\n<a href="/plain">p</a>\n';
    const { links } = await analyzePage('html.md', page);
    expect(links.map((link) => [link.target, link.line])).toEqual([
      ['/quoted', 4],
      ['/plain', 6],
    ]);
    for (const link of links) expect(page.slice(link.start, link.end)).toBe(link.target);
  });

  test('Markdown autolinks and angle-bracket definitions have exact offsets', async () => {
    const page = '<https://example.com/a> [x](</a b>)\n\n[r]: <./s p.md>\n';
    const { links } = await analyzePage('auto.md', page);
    expect(links.map((link) => link.target)).toEqual(['https://example.com/a', '/a b', './s p.md']);
    for (const link of links) expect(page.slice(link.start, link.end)).toBe(link.target);
  });

  test('offsets are -1 where the written URL differs from the target or is computed', async () => {
    const page = '[esc](/a\\(b) [ref](/x&amp;y) <Card href={"/expr"} /> <Card href={someVariable} />\n';
    const { links } = await analyzePage('unknown.mdx', page);
    expect(links).toEqual([
      { target: '/a(b', line: 1, start: -1, end: -1 },
      { target: '/x&y', line: 1, start: -1, end: -1 },
      { target: '/expr', line: 1, start: -1, end: -1 },
    ]);
  });

  test('a byte order mark does not shift offsets', async () => {
    const page = '\uFEFF[x](/y)\n';
    const { links } = await analyzePage('bom.mdx', page);
    expect(links).toEqual([{ target: '/y', line: 1, start: 5, end: 7 }]);
  });
});

describe('analyzePage: anchors from elements', () => {
  test('id attributes of JSX elements are anchors, with constant expressions', async () => {
    const page = '<div id="prerequisites">\n  ## Prérequis\n</div>\n\n<span id={"x"} /> <span id={computed} />\n';
    expect((await analyzePage('ids.mdx', page)).anchors).toEqual(['prerequisites', 'prérequis', 'x']);
  });
});

describe('analyzePage: raw HTML edge cases', () => {
  test('an unclosed quote yields no link, and the attribute after a closed one is still read', async () => {
    expect((await analyzePage('open-quote.md', '<a href="/never-closed>x</a>\n')).links).toEqual([]);
    const { links } = await analyzePage('data-href.md', '<a data-href="/no" HREF = \'/yes\'>x</a>\n');
    expect(links.map((link) => link.target)).toEqual(['/yes']);
  });
});
