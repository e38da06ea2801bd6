import { describe, expect, test } from 'vitest';
import { csvField, csvRow } from '../../src/cli/analytics-csv.js';
import { createVisitorsWriter, type VisitorsFormat } from '../../src/cli/analytics-visitors-output.js';
import { createWalkProgress } from '../../src/cli/analytics-walk-progress.js';

/** A minimal RFC 4180 reader, to prove what the writer produces parses back to the same values. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index++;
    } else field += char;
  }
  return records;
}

describe('CSV', () => {
  test('quotes only what needs it and doubles inner quotes', () => {
    expect(csvField('/docs/a')).toBe('/docs/a');
    expect(csvField(42)).toBe('42');
    expect(csvField('/a,b')).toBe('"/a,b"');
    expect(csvField('/say-"hi"')).toBe('"/say-""hi"""');
    expect(csvField('/line\nbreak')).toBe('"/line\nbreak"');
    expect(csvField(' /padded')).toBe('" /padded"');
    expect(csvField('')).toBe('');
    expect(csvRow(['page', '/x', 1, 2, 3])).toBe('page,/x,1,2,3\r\n');
  });

  test('round-trips awkward paths through a CSV reader', () => {
    const paths = ['/plain', '/comma,path', '/quote"d', '/new\nline', '/both",\r\n', '/ü/日本'];
    const text = paths.map((path) => csvRow(['page', path, 1])).join('');
    expect(parseCsv(text).map((record) => record[1])).toEqual(paths);
  });
});

function render(format: VisitorsFormat, pages: Array<Array<{ path: string; human: number; ai: number; total: number }>>): string {
  let output = '';
  const writer = createVisitorsWriter(format, (text) => (output += text), { projectId: 'prj_1', dateFrom: '2026-09-01', dateTo: '2026-10-01' });
  writer.start({ human: 1200, ai: 340, total: 1500 });
  for (const page of pages) writer.rows(page);
  writer.end();
  return output;
}

const PAGES = [
  [
    { path: '/docs', human: 1000, ai: 300, total: 1250 },
    { path: '/a,"b"', human: 5, ai: 0, total: 5 },
  ],
  [{ path: '/c', human: 1, ai: 1, total: 1 }],
];

describe('visitors writers', () => {
  test('table: totals, then right-aligned counts and the path', () => {
    const text = render('table', PAGES);
    expect(text).toContain('Unique visitors of project prj_1, from 2026-09-01 to before 2026-10-01 (UTC)');
    expect(text).toContain('  total  1,500  (human and AI deduplicated)');
    const lines = text.split('\n');
    const header = lines.findIndex((line) => line.endsWith('PATH'));
    expect(lines.slice(header, header + 4)).toEqual([
      'TOTAL  HUMAN   AI  PATH',
      '1,250  1,000  300  /docs',
      '    5      5    0  /a,"b"',
      '    1      1    1  /c',
    ]);
    expect(text.trimEnd().endsWith('3 pages.')).toBe(true);
  });

  test('csv: a site row with the totals, then one page row each, across pages', () => {
    expect(parseCsv(render('csv', PAGES))).toEqual([
      ['scope', 'path', 'human', 'ai', 'total'],
      ['site', '', '1200', '340', '1500'],
      ['page', '/docs', '1000', '300', '1250'],
      ['page', '/a,"b"', '5', '0', '5'],
      ['page', '/c', '1', '1', '1'],
    ]);
  });

  test('json: the API shape with every page in one array, also when empty', () => {
    expect(JSON.parse(render('json', PAGES))).toEqual({ totals: { human: 1200, ai: 340, total: 1500 }, visitors: PAGES.flat() });
    expect(JSON.parse(render('json', []))).toEqual({ totals: { human: 1200, ai: 340, total: 1500 }, visitors: [] });
    expect(render('table', [])).toContain('No page views in this range.');
  });
});

describe('walk progress', () => {
  test('stays silent for a short walk, then writes plain lines every few seconds off a terminal', () => {
    let now = 0;
    const written: string[] = [];
    const progress = createWalkProgress({ write: (text) => written.push(text) }, () => now);
    progress.update(1, 250);
    now = 900;
    progress.update(2, 500);
    expect(written).toEqual([]);
    now = 1000;
    progress.update(3, 750);
    now = 3000;
    progress.update(4, 1000);
    now = 6100;
    progress.update(5, 1250);
    progress.finish();
    expect(written).toEqual(['visitors: 3 pages, 750 rows, 1.0 s\n', 'visitors: 5 pages, 1,250 rows, 6.1 s\n']);
  });

  test('redraws one line on a terminal and erases it at the end', () => {
    let now = 0;
    const written: string[] = [];
    const progress = createWalkProgress({ write: (text) => written.push(text), isTTY: true }, () => now);
    now = 1000;
    progress.update(7, 1750);
    progress.finish();
    expect(written).toEqual(['\r\x1b[Kvisitors: 7 pages, 1,750 rows, 1.0 s', '\r\x1b[K']);
  });
});
