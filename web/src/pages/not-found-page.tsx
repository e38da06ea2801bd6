import { useDocumentTitle } from '../hooks/use-document-title';

export function NotFoundPage() {
  useDocumentTitle('Not found');
  return (
    <div class="page narrow">
      <h1>Page not found</h1>
      <p>There is no dashboard page at this address.</p>
      <p>
        <a href="/">Back to your projects</a>
      </p>
    </div>
  );
}
