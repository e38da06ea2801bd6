import type { DiffFile } from 'diff2html/lib-esm/types';
import type { PullRequestFile } from '../api/types';
import { plural } from '../lib/format';

interface Row {
  path: string;
  status: string | null;
  additions: number | null;
  deletions: number | null;
}

function diffPath(file: DiffFile): string {
  return file.isDeleted ? file.oldName : file.newName;
}

/** The server's file list, with line counts from the diff when the server gives none. */
function rows(files: PullRequestFile[], parsed: DiffFile[]): Row[] {
  const stats = new Map(parsed.map((file) => [diffPath(file), file]));
  const list: Row[] = files.map((file) => {
    const path = typeof file === 'string' ? file : file.path;
    const stat = stats.get(path);
    return {
      path,
      status: typeof file === 'string' ? (stat ? (stat.isNew ? 'added' : stat.isDeleted ? 'deleted' : stat.isRename ? 'renamed' : 'modified') : null) : (file.status ?? null),
      additions: typeof file !== 'string' && file.additions !== undefined ? file.additions : (stat?.addedLines ?? null),
      deletions: typeof file !== 'string' && file.deletions !== undefined ? file.deletions : (stat?.deletedLines ?? null),
    };
  });
  if (list.length === 0) for (const file of parsed) list.push({ path: diffPath(file), status: null, additions: file.addedLines, deletions: file.deletedLines });
  return list;
}

export function PullRequestFiles({ files, parsed }: { files: PullRequestFile[]; parsed: DiffFile[] }) {
  const list = rows(files, parsed);
  if (list.length === 0) return null;
  return (
    <section class="card" aria-labelledby="files-heading">
      <h2 id="files-heading">{plural(list.length, 'file')} changed</h2>
      <ul class="file-list file-stats">
        {list.map((row) => (
          <li key={row.path}>
            <code>{row.path}</code>
            {row.status && <span class={`file-status file-${row.status}`}>{row.status}</span>}
            {row.additions !== null && <span class="added" aria-label={`${row.additions} lines added`}>+{row.additions}</span>}
            {row.deletions !== null && <span class="deleted" aria-label={`${row.deletions} lines removed`}>−{row.deletions}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
