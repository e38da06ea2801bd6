import type { PullRequestFile } from '../api/types';
import { plural } from '../lib/format';

/** The files a pull request changes, with line counts, as the server lists them. */
export function PullRequestFiles({ files, truncated }: { files: PullRequestFile[]; truncated: boolean }) {
  if (files.length === 0) return null;
  return (
    <section class="card" aria-labelledby="files-heading">
      <h2 id="files-heading">{plural(files.length, 'file')} changed</h2>
      <ul class="file-list file-stats" data-testid="pr-files">
        {files.map((file) => (
          <li key={file.path}>
            <code>{file.path}</code>
            {file.previousPath && (
              <span class="muted small">
                from <code>{file.previousPath}</code>
              </span>
            )}
            <span class={`file-status file-${file.status}`}>{file.status}</span>
            {file.binary ? (
              <span class="muted small">binary</span>
            ) : (
              <>
                <span class="added" aria-label={`${file.additions} lines added`}>
                  +{file.additions}
                </span>
                <span class="deleted" aria-label={`${file.deletions} lines removed`}>
                  −{file.deletions}
                </span>
              </>
            )}
          </li>
        ))}
      </ul>
      {truncated && <p class="muted small">More files changed than are listed.</p>}
    </section>
  );
}
