import { useEffect } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { Loading } from '../components/loading';

/** /projects/{id} opens the project's jobs. */
export function ProjectRedirect() {
  const { params } = useRoute();
  const location = useLocation();
  useEffect(() => location.route(`/projects/${encodeURIComponent(params.projectId ?? '')}/jobs`, true), [params.projectId]);
  return <Loading />;
}
