import type { AgentErrorsReport, AgentsReport, PagesReport } from '../../api/types';
import { formatNumber } from '../../lib/format';

export interface AiReadersData {
  agents: AgentsReport;
  skewed: PagesReport;
  errors: AgentErrorsReport;
}

/** Agents, the pages they favour over people, pages that answered them 4xx, and AI referrals (/agents, /pages, /agent-errors). */
export function AiReaders({ data }: { data: AiReadersData }) {
  const favoured = data.skewed.pages.filter((page) => page.aiReaders > page.humanReaders);
  return (
    <div class="breakdown-grid" data-testid="ai-readers">
      <section class="card" aria-labelledby="ai-agents-heading">
        <h2 id="ai-agents-heading">AI agents</h2>
        {data.agents.agents.length === 0 ? (
          <p class="muted">No named AI agent or bot in this range.</p>
        ) : (
          <div class="table-scroll" tabIndex={0} role="region" aria-label="AI agents">
            <table class="table table-compact" data-testid="ai-agents-table">
              <thead>
                <tr>
                  <th scope="col">Agent</th>
                  <th scope="col">Category</th>
                  <th scope="col" class="num">
                    Hits
                  </th>
                  <th scope="col" class="num">
                    Verified
                  </th>
                  <th scope="col" class="num" title="Distinct pages requested">
                    URLs
                  </th>
                  <th scope="col" class="num" title="Markdown and llms.txt reads">
                    MD / llms
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.agents.agents.map((row) => (
                  <tr key={`${row.agent}:${row.category}:${row.class}`}>
                    <td>{row.agent}</td>
                    <td>{row.category}</td>
                    <td class="num">{formatNumber(row.hits)}</td>
                    <td class="num">{Math.round(row.verifiedShare * 100)}%</td>
                    <td class="num">{formatNumber(row.pages)}</td>
                    <td class="num">{formatNumber(row.markdownReads + row.llmsTxtReads + row.llmsFullTxtReads)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section class="card" aria-labelledby="ai-pages-heading">
        <h2 id="ai-pages-heading">Read by agents more than by people</h2>
        {favoured.length === 0 ? (
          <p class="muted">No page has more AI readers than human ones.</p>
        ) : (
          <div class="table-scroll" tabIndex={0} role="region" aria-label="Pages agents favour">
            <table class="table table-compact" data-testid="ai-favoured-table">
              <thead>
                <tr>
                  <th scope="col">Path</th>
                  <th scope="col" class="num">
                    AI readers
                  </th>
                  <th scope="col" class="num">
                    Human readers
                  </th>
                </tr>
              </thead>
              <tbody>
                {favoured.map((row) => (
                  <tr key={row.path}>
                    <td class="path-cell">{row.path}</td>
                    <td class="num">{formatNumber(row.aiReaders)}</td>
                    <td class="num">{formatNumber(row.humanReaders)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <h2 id="ai-errors-heading">Pages that answered agents with 4xx</h2>
        {data.errors.errors.length === 0 ? (
          <p class="muted">None (statuses come from events with a status and from access logs).</p>
        ) : (
          <ul class="path-list">
            {data.errors.errors.map((row) => (
              <li key={`${row.path}:${row.status}`}>
                <code>{row.path}</code> {row.status}: {formatNumber(row.hits)} hits {row.agents.length > 0 && `(${row.agents.join(', ')})`}
              </li>
            ))}
          </ul>
        )}
        <h2 id="ai-referrals-heading">Visitors sent by AI products</h2>
        {data.skewed.referralSources.length === 0 ? (
          <p class="muted">None in this range.</p>
        ) : (
          <ul>
            {data.skewed.referralSources.slice(0, 5).map((row) => (
              <li key={row.source}>
                {row.source}: {formatNumber(row.referrals)} views, {formatNumber(row.visitors)} visitors
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
