import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { inertBlockquote, inertCodeSpan, inertLine, inertText, normaliseUntrustedText } from '../../src/jobs/inert-markdown.js';
import { activeConstructs, attackText, PIECES, visible, ZW } from '../helpers/active-markdown.js';

describe('inert text properties', () => {
  test('each helper alone leaves nothing active', () => {
    fc.assert(
      fc.property(attackText, (text) => {
        for (const output of [inertText(text), inertLine(text), inertCodeSpan(text), inertBlockquote(text)]) expect(activeConstructs(output)).toEqual([]);
        expect(inertLine(text)).not.toContain('\n');
      }),
      { numRuns: 2_000 },
    );
  });

  test('the text still reads the same: only zero-width spaces are added where nothing is rewritten', () => {
    // Without `[` and `<` there is no link to rewrite, so the visible text is the input's.
    const plain = fc
      .array(fc.constantFrom(...PIECES.filter((piece) => !piece.includes('[') && !piece.includes('<'))), { maxLength: 60 })
      .map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(plain, (text) => {
        expect(visible(inertText(text))).toBe(normaliseUntrustedText(text));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('inert text examples', () => {
  test('images, inline and reference-style, become their alt text and address', () => {
    expect(visible(inertText('Look: ![pixel](https://evil.test/p.png "t") done'))).toBe('Look: pixel (https://evil.test/p.png) done');
    const reference = inertText('![logo][l] and ![l]\n\n[l]: https://evil.test/p.png');
    expect(activeConstructs(reference)).toEqual([]);
    expect(visible(reference)).toBe('![logo][l] and ![l]\n\n[l]: https://evil.test/p.png');
    expect(visible(inertText('![](https://evil.test/p.png)'))).toBe('https://evil.test/p.png');
  });

  test('links stay readable as text', () => {
    expect(visible(inertText('See [the docs](https://docs.test/a%20b#install).'))).toBe('See the docs (https://docs.test/a%20b#install).');
    expect(inertText('[https://a.test](https://a.test) and <https://b.test/x>')).toBe('https://a.test and https://b.test/x');
    // A shape the rewrite does not read still cannot link: `](` is broken.
    expect(inertText('[a [nested] label](https://x.test)')).toBe(`[a [nested] label]${ZW}(https://x.test)`);
  });

  test('raw HTML and entities are shown, not rendered', () => {
    expect(inertText('<img src=x onerror=alert(1)> </details> <!-- hidden --> <?php ?> <![CDATA[x]]>')).toBe(
      `<${ZW}img src=x onerror=alert(1)> <${ZW}/details> <${ZW}!-- hidden --> <${ZW}?php ?> <${ZW}!${ZW}[CDATA[x]]>`,
    );
    expect(inertText('`<Callout>` and a < b')).toBe(`\`<${ZW}Callout>\` and a < b`);
    expect(inertText('&#64;alice &commat;bob &amp; AT&T')).toBe(`&${ZW}#${ZW}64;alice &${ZW}commat;bob &${ZW}amp; AT&T`);
  });

  test('closing keywords in every spelling lose their meaning but not their look', () => {
    for (const phrase of [
      'Fixes #12',
      'fix: #1',
      'CLOSES owner/repo#3',
      'closed https://github.com/o/r/issues/4',
      'Resolves: GH-7',
      'resolved #8',
      'Close #9',
      'fixed #1, fixes #2',
      'Closes !4',
      'Implements #5',
      'closing #6',
    ]) {
      const output = inertText(phrase);
      expect(activeConstructs(output), phrase).toEqual([]);
      expect(visible(output)).toBe(phrase);
    }
    expect(inertText('prefix fixture unresolved')).toBe('prefix fixture unresolved');
  });

  test('mentions, team mentions and GitLab references', () => {
    expect(inertText('@alice @org/team @all mail@example.com')).toBe(`@${ZW}alice @${ZW}org/team @${ZW}all mail@${ZW}example.com`);
    expect(inertText('!12 ~bug ~"two words" %v1.0 %"Q3" $45 &7')).toBe(`!${ZW}12 ~${ZW}bug ~${ZW}"two words" %${ZW}v1.0 %${ZW}"Q3" $${ZW}45 &${ZW}7`);
    expect(inertText('100% done, 50%2F, ~ and ! and # alone')).toBe('100% done, 50%2F, ~ and ! and # alone');
  });

  test('GitLab quick actions at a line start are not executed', () => {
    expect(inertText('/merge\n  /assign @me\nnot /approve')).toBe(`${ZW}/merge\n  ${ZW}/assign @${ZW}me\nnot /approve`);
  });

  test('invisible and control characters are removed', () => {
    expect(inertText('a\u202Eb\u200Bc\u00ADd\u0007e\r\nf\u2028g')).toBe('abcde\nf\ng');
  });

  test('code spans hold any file name, backticks included', () => {
    expect(inertCodeSpan('docs/intro.mdx')).toBe('`docs/intro.mdx`');
    expect(inertCodeSpan('a`b')).toBe('``a`b``');
    expect(inertCodeSpan('`x``')).toBe('``` `x`` ```');
    expect(inertCodeSpan('two\nlines')).toBe('`two lines`');
  });
});
