import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  readRepositoryInstructions,
  REPOSITORY_INSTRUCTION_FILES,
  TRUNCATED_MARKER,
  type ReadInstructionsOptions,
} from '../../src/agent/repository-instructions.js';

const OPTIONS: ReadInstructionsOptions = { maxBytes: 32_768, secrets: [] };

let workspace: string;
let outside: string;

function put(path: string, content: string | Buffer): void {
  mkdirSync(dirname(join(workspace, path)), { recursive: true });
  writeFileSync(join(workspace, path), content);
}

function link(path: string, target: string): void {
  mkdirSync(dirname(join(workspace, path)), { recursive: true });
  symlinkSync(target, join(workspace, path));
}

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'docwright-instructions-'));
  outside = mkdtempSync(join(tmpdir(), 'docwright-outside-'));
  mkdirSync(join(workspace, '.git'));
  writeFileSync(join(workspace, '.git', 'config'), '[core]\n\tsecret = from-git-config\n');
  writeFileSync(join(outside, 'AGENTS.md'), 'OUTSIDE-THE-WORKSPACE: leak me');
});

afterEach(() => {
  rmSync(workspace, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('which file', () => {
  test('no file: nothing found, nothing ignored', async () => {
    expect(await readRepositoryInstructions(workspace, OPTIONS)).toEqual({ found: null, ignored: [] });
  });

  test('the most specific file wins, alone, in the documented order', async () => {
    for (const path of REPOSITORY_INSTRUCTION_FILES) put(path, `from ${path}`);
    const seen: string[] = [];
    for (const path of REPOSITORY_INSTRUCTION_FILES) {
      const { found } = await readRepositoryInstructions(workspace, OPTIONS);
      seen.push(found?.path ?? 'none');
      expect(found?.text).toBe(`from ${path}`);
      rmSync(join(workspace, path));
    }
    expect(seen).toEqual(['.docwright/instructions.md', '.mintlify/AGENTS.md', '.mintlify/Agents.md', 'AGENTS.md', 'Agents.md']);
    expect((await readRepositoryInstructions(workspace, OPTIONS)).found).toBeNull();
  });

  test('maxBytes 0 reads nothing', async () => {
    put('AGENTS.md', 'Use British spelling.');
    expect(await readRepositoryInstructions(workspace, { ...OPTIONS, maxBytes: 0 })).toEqual({ found: null, ignored: [] });
  });

  test('a byte-order mark and surrounding blank lines are dropped', async () => {
    put('AGENTS.md', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('\n\nUse British spelling.\n\n')]));
    const { found } = await readRepositoryInstructions(workspace, OPTIONS);
    expect(found).toEqual({ path: 'AGENTS.md', text: 'Use British spelling.', bytes: 28, truncated: false });
  });
});

describe('the cap', () => {
  test('a file above the cap is cut on a character boundary, with a visible marker', async () => {
    // 'é' is 2 bytes and '😀' 4: an odd cap falls inside a character either way.
    put('AGENTS.md', 'é'.repeat(100));
    const { found } = await readRepositoryInstructions(workspace, { ...OPTIONS, maxBytes: 11 });
    expect(found?.text).toBe(`${'é'.repeat(5)}\n${TRUNCATED_MARKER}`);
    expect(found).toMatchObject({ bytes: 200, truncated: true });

    put('AGENTS.md', '😀'.repeat(10));
    const emoji = await readRepositoryInstructions(workspace, { ...OPTIONS, maxBytes: 7 });
    expect(emoji.found?.text).toBe(`😀\n${TRUNCATED_MARKER}`);
    expect(emoji.found?.text).not.toContain('\uFFFD');
  });

  test('a file at the cap is whole, without a marker', async () => {
    put('AGENTS.md', 'a'.repeat(64));
    const { found } = await readRepositoryInstructions(workspace, { ...OPTIONS, maxBytes: 64 });
    expect(found).toMatchObject({ text: 'a'.repeat(64), truncated: false, bytes: 64 });
  });

  test('a huge file is read only up to the cap (and its size still reported)', async () => {
    put('AGENTS.md', `${'x'.repeat(1_000)}${'y'.repeat(5_000_000)}`);
    const { found } = await readRepositoryInstructions(workspace, { ...OPTIONS, maxBytes: 1_000 });
    expect(found).toMatchObject({ text: `${'x'.repeat(1_000)}\n${TRUNCATED_MARKER}`, bytes: 5_001_000, truncated: true });
  });

  test('credentials are masked, also one that straddles the cut', async () => {
    const secret = 'ghp_instructionSecret0123456789';
    put('AGENTS.md', `${'a'.repeat(90)}${secret} and again ${secret}`);
    const { found } = await readRepositoryInstructions(workspace, { maxBytes: 100, secrets: [secret] });
    expect(found?.text).not.toContain(secret.slice(0, 8));
    expect(found?.text).toBe(`${'a'.repeat(90)}[REDACTED]\n${TRUNCATED_MARKER}`);
  });
});

describe('hostile files are passed over', () => {
  test('a symbolic link leading out of the workspace is not read, and the next candidate is used', async () => {
    link('.docwright/instructions.md', join(outside, 'AGENTS.md'));
    put('AGENTS.md', 'Use British spelling.');
    const lookup = await readRepositoryInstructions(workspace, OPTIONS);
    expect(lookup.found?.path).toBe('AGENTS.md');
    expect(lookup.ignored).toEqual([{ path: '.docwright/instructions.md', reason: 'symlink_outside_workspace' }]);
    expect(JSON.stringify(lookup)).not.toContain('OUTSIDE-THE-WORKSPACE');
  });

  test('a linked directory leading out, a link into .git and a relative escape are not read', async () => {
    link('.mintlify', outside);
    link('AGENTS.md', '.git/config');
    link('Agents.md', '../../../../../../../../etc/passwd');
    const lookup = await readRepositoryInstructions(workspace, OPTIONS);
    expect(lookup.found).toBeNull();
    expect(lookup.ignored).toEqual([
      { path: '.mintlify/AGENTS.md', reason: 'symlink_outside_workspace' },
      // Absent in `outside` too: the linked directory itself is refused.
      { path: '.mintlify/Agents.md', reason: 'symlink_outside_workspace' },
      { path: 'AGENTS.md', reason: 'symlink_outside_workspace' },
      { path: 'Agents.md', reason: 'symlink_outside_workspace' },
    ]);
    expect(JSON.stringify(lookup)).not.toMatch(/OUTSIDE-THE-WORKSPACE|from-git-config|root:/);
  });

  test('a link is passed over even when it stays inside the workspace: the resolver follows none (AGENTS.md -> CLAUDE.md)', async () => {
    put('CLAUDE.md', 'Use British spelling.');
    link('AGENTS.md', 'CLAUDE.md');
    const lookup = await readRepositoryInstructions(workspace, OPTIONS);
    expect(lookup.found).toBeNull();
    expect(lookup.ignored).toEqual([{ path: 'AGENTS.md', reason: 'not_a_file' }]);
  });

  test('directories, broken links, FIFOs, binary, non-UTF-8 and empty files are ignored', async () => {
    mkdirSync(join(workspace, '.docwright', 'instructions.md'), { recursive: true });
    link('.mintlify/AGENTS.md', 'missing.md');
    // A FIFO must not hang the read: nobody ever writes to it.
    mkdirSync(join(workspace, '.mintlify'), { recursive: true });
    execFileSync('mkfifo', [join(workspace, '.mintlify', 'Agents.md')]);
    put('AGENTS.md', Buffer.from([0x55, 0x73, 0x65, 0x00, 0x01, 0x02]));
    put('Agents.md', Buffer.from('Caf\xe9 au lait', 'latin1'));
    const lookup = await readRepositoryInstructions(workspace, OPTIONS);
    expect(lookup.found).toBeNull();
    expect(lookup.ignored).toEqual([
      { path: '.docwright/instructions.md', reason: 'not_a_file' },
      { path: '.mintlify/AGENTS.md', reason: 'broken_symlink' },
      { path: '.mintlify/Agents.md', reason: 'not_a_file' },
      { path: 'AGENTS.md', reason: 'binary' },
      { path: 'Agents.md', reason: 'not_utf8' },
    ]);

    rmSync(join(workspace, 'Agents.md'));
    put('Agents.md', ' \n\t\n');
    expect((await readRepositoryInstructions(workspace, OPTIONS)).ignored.at(-1)).toEqual({ path: 'Agents.md', reason: 'empty' });
  });

  test('invalid UTF-8 right before the cap is not mistaken for a cut character', async () => {
    // A lone continuation byte inside the prefix: not a character the cap split.
    put('AGENTS.md', Buffer.concat([Buffer.from('abc'), Buffer.from([0x80]), Buffer.from('d'.repeat(100))]));
    expect((await readRepositoryInstructions(workspace, { ...OPTIONS, maxBytes: 4 })).ignored).toEqual([{ path: 'AGENTS.md', reason: 'not_utf8' }]);
  });
});
