import { CodeBlock } from '../code-block';

/** No data in the range: the three ways to send some, ready to paste. */
export function AnalyticsEmptyState({ projectId, beaconOn }: { projectId: string; beaconOn: boolean }) {
  const origin = location.origin;
  const beacon = `<script defer src="${origin}/script.js" data-project="${projectId}"></script>`;
  const curl = [
    `curl -X POST '${origin}/v1/analytics/${projectId}/events' \\`,
    `  -H "Authorization: Bearer $DOCWRIGHT_API_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"events": [{"path": "/quickstart", "ip": "203.0.113.7", "userAgent": "Mozilla/5.0"}]}'`,
  ].join('\n');
  const importCommand = [
    `DOCWRIGHT_URL=${origin} DOCWRIGHT_API_KEY=dw_admin_… \\`,
    `  docwright analytics import --project ${projectId} /var/log/nginx/access.log*`,
  ].join('\n');
  return (
    <section class="card empty-analytics" aria-labelledby="empty-analytics-heading">
      <h2 id="empty-analytics-heading">No visits in this range yet</h2>
      <p>Send page views in any of three ways; they show up here within seconds.</p>
      <h3>1. The page beacon</h3>
      <p>
        Add this tag to every page of your docs site.{' '}
        {beaconOn ? (
          'Your site’s origin is allowed in the project settings.'
        ) : (
          <>
            First add your site’s origin under <a href={`/projects/${encodeURIComponent(projectId)}/settings`}>Allowed beacon origins</a>: the beacon is off
            until you do.
          </>
        )}
      </p>
      <CodeBlock code={beacon} label="beacon script tag" />
      <h3>2. The events API</h3>
      <p>From your own pipeline, with an ingest or admin key (up to 1,000 events a request):</p>
      <CodeBlock code={curl} label="curl command that sends an event" />
      <h3>3. Your server logs</h3>
      <p>Import nginx or Apache access logs (plain or gzipped), or JSON lines:</p>
      <CodeBlock code={importCommand} label="log import command" />
    </section>
  );
}
