import type { ComponentChildren } from 'preact';
import { useSession } from '../api/session-store';
import { cachedProject, projectsApi } from '../api/projects-api';
import type { Project } from '../api/types';
import { useResource } from '../hooks/use-resource';
import { useDocumentTitle } from '../hooks/use-document-title';
import { ErrorMessage } from './error-message';
import { Loading } from './loading';

type Tab = 'jobs' | 'analytics' | 'keys' | 'webhooks' | 'settings';

const TABS: Array<{ id: Tab; label: string; adminOnly: boolean }> = [
  { id: 'jobs', label: 'Agent jobs', adminOnly: false },
  { id: 'analytics', label: 'Analytics', adminOnly: false },
  { id: 'keys', label: 'API keys', adminOnly: true },
  { id: 'webhooks', label: 'Webhooks', adminOnly: true },
  { id: 'settings', label: 'Settings', adminOnly: true },
];

interface Props {
  projectId: string;
  tab: Tab;
  /** The page's own name, for the document title. */
  title: string;
  /** The page has its own h1 (a job's title); the project name then stays in the breadcrumb. */
  ownHeading?: boolean;
  children: (project: Project) => ComponentChildren;
}

/** The project's header and tabs around one of its pages; loads the project once. */
export function ProjectLayout({ projectId, tab, title, ownHeading = false, children }: Props) {
  const session = useSession();
  const isAdmin = session.status === 'ready' && session.user?.role === 'admin';
  const resource = useResource((signal) => projectsApi.get(projectId, signal), projectId);
  const project = resource.data ?? cachedProject(projectId);
  useDocumentTitle(project ? `${title} · ${project.name}` : title);

  if (!project) {
    if (resource.error) {
      return (
        <div class="page">
          <h1>{title}</h1>
          <ErrorMessage
            error={resource.error}
            title={resource.error.status === 404 ? 'No such project' : 'Could not load the project'}
            onRetry={resource.reload}
          />
          <p>
            <a href="/">All projects</a>
          </p>
        </div>
      );
    }
    return (
      <div class="page">
        <Loading label="Loading the project…" />
      </div>
    );
  }
  const base = `/projects/${encodeURIComponent(project.id)}`;
  return (
    <div class="page">
      <div class="project-header">
        <nav aria-label="Breadcrumb" class="breadcrumb">
          <a href="/">Projects</a>
          {ownHeading && (
            <>
              <span aria-hidden="true">/</span>
              <a href={`${base}/jobs`}>{project.name}</a>
            </>
          )}
        </nav>
        {!ownHeading && <h1 class="project-title">{project.name}</h1>}
        <p class="project-repo" title={project.repository}>
          <span class="forge-tag">{project.forge}</span> <code>{project.repository}</code> <span class="muted">on</span> <code>{project.ref}</code>
        </p>
        <nav aria-label="Project" class="tabs">
          {TABS.filter((item) => isAdmin || !item.adminOnly).map((item) => (
            <a key={item.id} href={`${base}/${item.id}`} class="tab" aria-current={item.id === tab ? 'page' : undefined}>
              {item.label}
            </a>
          ))}
        </nav>
      </div>
      {children(project)}
    </div>
  );
}
