/**
 * The text of one generated Mintlify page (bench/docs-site-generator.ts lays out the site
 * and decides where every link points). A page is 3–6 KB of MDX with what real pages
 * carry: frontmatter, headings, callouts, tabs with code blocks, cards with `href`,
 * inline and display math, images, and its links spread over prose, lists and cards.
 */

export interface PageLinkPlan {
  /** The link as written (`/guides/a`, `../b`, `/v1/concepts/c#usage`). */
  written: string;
  /** Written as a `<Card href>` rather than a Markdown link. */
  card: boolean;
}

export interface PageTextInput {
  title: string;
  /** Internal links, judged by the checker. */
  links: readonly PageLinkPlan[];
  /** Links that must appear verbatim and exactly once (the edits the benchmark makes). */
  markers: readonly string[];
  imageCount: number;
  /** Bytes to aim for; filler prose is added until the page reaches it. */
  targetBytes: number;
  random: () => number;
}

const WORDS = (
  'project docs page deploy build preview branch token webhook request response schema field value client server ' +
  'cache region user team role access key limit retry timeout version release search index theme layout navigation ' +
  'component snippet example option default setting environment variable command output error event queue worker ' +
  'policy audit session header payload endpoint secret rotation tenant workspace billing usage quota metric alert'
).split(' ');

const LANGUAGES = [
  {
    title: 'cURL',
    lang: 'bash',
    code: (word: string) => [
      `curl -X POST https://api.example.com/v1/${word} \\`,
      '  -H "Authorization: Bearer $TOKEN" \\',
      `  -d '{"name": "${word}", "retries": 3}'`,
    ],
  },
  {
    title: 'Node.js',
    lang: 'javascript',
    code: (word: string) => [
      `import { Client } from '@example/sdk';`,
      '',
      'const client = new Client({ token: process.env.TOKEN });',
      `const result = await client.${word}.create({ retries: 3 });`,
      'console.log(result.id);',
    ],
  },
  {
    title: 'Python',
    lang: 'python',
    code: (word: string) => [
      'from example import Client',
      '',
      'client = Client(token=os.environ["TOKEN"])',
      `result = client.${word}.create(retries=3)`,
      'print(result.id)',
    ],
  },
];

const FORMULAS = [
  '\\sum_{i=1}^{n} t_i \\leq T_{\\max}',
  'r = \\frac{\\text{requests}}{\\Delta t}',
  'p(x) = 1 - e^{-\\lambda x}',
  '\\lceil \\log_2 n \\rceil + 1',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

export function sentence(random: () => number, words: number): string {
  const text = Array.from({ length: words }, () => pick(random, WORDS)).join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function linkText(random: () => number): string {
  return sentence(random, 2 + Math.floor(random() * 3))
    .slice(0, -1)
    .toLowerCase();
}

export function pageText(input: PageTextInput): string {
  const { random } = input;
  const prose = input.links.filter((link) => !link.card).map((link) => `[${linkText(random)}](${link.written})`);
  prose.push(...input.markers);
  const cards = input.links.filter((link) => link.card);
  // Links are handed out in order to the places below; whatever is left goes to the last section.
  const take = (count: number): string[] => prose.splice(0, count);
  const paragraph = (links: string[]): string => {
    const parts = [sentence(random, 10 + Math.floor(random() * 8))];
    for (const link of links) parts.push(`See ${link} for ${sentence(random, 4).toLowerCase()}`, sentence(random, 6 + Math.floor(random() * 10)));
    return parts.join(' ');
  };
  const word = pick(random, WORDS);
  const lines: string[] = [
    '---',
    `title: "${input.title}"`,
    `description: "${sentence(random, 12)}"`,
    `icon: "${pick(random, ['book', 'rocket', 'code', 'gear', 'shield'])}"`,
    '---',
    '',
    paragraph(take(2)),
    '',
    '<Note>',
    `  ${paragraph(take(1))}`,
    '</Note>',
    '',
    '## Overview',
    '',
    paragraph(take(3)),
    '',
    '### Requirements',
    '',
    ...take(3).map((link) => `- ${sentence(random, 5)} Read ${link}.`),
    `- The limit is ${Math.floor(random() * 900) + 100} ${word} requests per minute.`,
    '',
    '## Example',
    '',
    '<Tabs>',
  ];
  for (const language of LANGUAGES) {
    lines.push(
      `  <Tab title="${language.title}">`,
      `    \`\`\`${language.lang}`,
      ...language.code(word).map((line) => (line === '' ? '' : `    ${line}`)),
      '    ```',
      '  </Tab>',
    );
  }
  lines.push(
    '</Tabs>',
    '',
    `The check runs in $O(n \\log n)$ time for $n$ ${word}s, and the retry budget is bounded by`,
    '',
    '$$',
    pick(random, FORMULAS),
    '$$',
    '',
  );
  for (let image = 0; image < input.imageCount; image += 1) {
    lines.push(`![${linkText(random)}](/images/diagram-${Math.floor(random() * 20)}.png)`, '');
  }
  lines.push(
    '## Configuration',
    '',
    paragraph(take(3)),
    '',
    '```json',
    '{',
    `  "${word}": {`,
    `    "enabled": true,`,
    `    "retries": ${Math.floor(random() * 5)}`,
    '  }',
    '}',
    '```',
    '',
  );
  if (cards.length > 0) {
    lines.push('## Related', '', '<CardGroup cols={2}>');
    for (const card of cards)
      lines.push(`  <Card title="${sentence(random, 3).slice(0, -1)}" icon="book" href="${card.written}">`, `    ${sentence(random, 9)}`, '  </Card>');
    lines.push('</CardGroup>', '');
  }
  lines.push('## Details', '', paragraph(take(prose.length)), '');
  lines.push(`Read more on [the ${word} blog](https://blog.example.com/${word}) or jump back to [the overview](#overview).`, '');
  let text = lines.join('\n');
  // Filler sections bring the page to its size without adding links.
  const filler: string[] = [];
  while (text.length + filler.join('\n').length < input.targetBytes) {
    filler.push(`### ${sentence(random, 3).slice(0, -1)}`, '', paragraph([]), '', paragraph([]), '');
  }
  text += filler.join('\n');
  return text;
}
