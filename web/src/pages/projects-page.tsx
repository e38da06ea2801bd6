import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { projectsApi } from '../api/projects-api';
import { useSession } from '../api/session-store';
import { EmptyState } from '../components/empty-state';
import { ErrorMessage } from '../components/error-message';
import { Loading } from '../components/loading';
import { NewProjectDialog } from '../components/new-project-dialog';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useResource } from '../hooks/use-resource';
import { formatRelative } from '../lib/format';

export function ProjectsPage() {
  useDocumentTitle('Projects');
  const session = useSession();
  const location = useLocation();
  const isAdmin = session.status === 'ready' && session.user?.role === 'admin';
  const projects = useResource((signal) => projectsApi.list(signal), 'projects');
  const [creating, setCreating] = useState(false);

  return (
    <div class="page">
      <div class="page-header">
        <h1>Projects</h1>
        {isAdmin && (
          <button type="button" class="btn btn-primary" onClick={() => setCreating(true)}>
            New project
          </button>
        )}
      </div>
      {projects.error && <ErrorMessage error={projects.error} title="Could not load the projects" onRetry={projects.reload} />}
      {projects.loading && !projects.data && <Loading label="Loading projects…" />}
      {projects.data?.length === 0 && (
        <EmptyState title="No projects yet">
          <p>A project is one documentation repository: agent jobs edit it and open pull requests, and its site's visitors are counted.</p>
          {isAdmin ? (
            <button type="button" class="btn btn-primary" onClick={() => setCreating(true)}>
              Create your first project
            </button>
          ) : (
            <p>Ask an admin to create one.</p>
          )}
        </EmptyState>
      )}
      {projects.data && projects.data.length > 0 && (
        <ul class="project-grid">
          {projects.data.map((project) => {
            const base = `/projects/${encodeURIComponent(project.id)}`;
            return (
              <li key={project.id} class="card project-card">
                <h2 class="project-name">
                  <a href={`${base}/jobs`}>{project.name}</a>
                </h2>
                <p class="project-repo" title={project.repository}>
                  <span class="forge-tag">{project.forge}</span> <code>{project.repository}</code>
                </p>
                <p class="muted small">
                  Base branch <code>{project.ref}</code> · created <time dateTime={project.createdAt}>{formatRelative(project.createdAt)}</time>
                </p>
                <nav class="card-links" aria-label={`${project.name} pages`}>
                  <a href={`${base}/jobs`}>Jobs</a>
                  <a href={`${base}/analytics`}>Analytics</a>
                  {isAdmin && <a href={`${base}/keys`}>API keys</a>}
                  {isAdmin && <a href={`${base}/settings`}>Settings</a>}
                </nav>
              </li>
            );
          })}
        </ul>
      )}
      <NewProjectDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(project) => {
          setCreating(false);
          projects.reload();
          location.route(`/projects/${encodeURIComponent(project.id)}/keys`);
        }}
      />
    </div>
  );
}
