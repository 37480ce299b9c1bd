import type { EvalConfigurationSummary, EvalReport } from './eval-report';
import { formatPercent, formatPValue, formatSeconds, formatUsd } from './eval-report-format';
import { evalReportMarkdown } from './eval-report-markdown';

/** Text made safe for HTML and SVG, content and attributes alike. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);
}

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777'];

/** Pass rate per configuration: a bar, and the 95% interval as a whisker. */
function passRateChart(configurations: EvalConfigurationSummary[]): string {
  const rowHeight = 34;
  const left = 180;
  const width = 440;
  const height = configurations.length * rowHeight + 40;
  const x = (rate: number) => left + rate * width;
  const rows = configurations.map((c, index) => {
    const y = 10 + index * rowHeight;
    const mid = y + 12;
    return [
      `<g data-testid="pass-rate-row" data-configuration="${escapeHtml(c.id)}">`,
      `<text x="${left - 8}" y="${mid + 4}" text-anchor="end">${escapeHtml(c.id)}</text>`,
      `<rect x="${left}" y="${y}" width="${(c.passRate * width).toFixed(2)}" height="24" fill="${COLORS[index % COLORS.length]}" opacity="0.75"><title>${escapeHtml(`${c.id}: ${formatPercent(c.passRate)} (95% CI ${formatPercent(c.interval.low)} – ${formatPercent(c.interval.high)})`)}</title></rect>`,
      `<line class="whisker" x1="${x(c.interval.low).toFixed(2)}" x2="${x(c.interval.high).toFixed(2)}" y1="${mid}" y2="${mid}" stroke="#111" stroke-width="2"/>`,
      `<line x1="${x(c.interval.low).toFixed(2)}" x2="${x(c.interval.low).toFixed(2)}" y1="${mid - 7}" y2="${mid + 7}" stroke="#111" stroke-width="2"/>`,
      `<line x1="${x(c.interval.high).toFixed(2)}" x2="${x(c.interval.high).toFixed(2)}" y1="${mid - 7}" y2="${mid + 7}" stroke="#111" stroke-width="2"/>`,
      `<text x="${x(c.interval.high) + 6}" y="${mid + 4}">${formatPercent(c.passRate)}</text>`,
      '</g>',
    ].join('');
  });
  const axisY = configurations.length * rowHeight + 14;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) => `<line x1="${x(t)}" x2="${x(t)}" y1="6" y2="${axisY}" stroke="#ddd"/><text x="${x(t)}" y="${axisY + 16}" text-anchor="middle">${t * 100}%</text>`);
  return `<svg data-testid="pass-rate-chart" xmlns="http://www.w3.org/2000/svg" width="${left + width + 80}" height="${height}" role="img" aria-label="Pass rate per configuration with 95% confidence intervals">${ticks.join('')}${rows.join('')}</svg>`;
}

/** Cost against pass rate: one point per configuration whose cost is known. */
function costChart(configurations: EvalConfigurationSummary[]): string {
  const known = configurations.map((c, index) => ({ c, index })).filter(({ c }) => c.costUsd !== null);
  if (known.length === 0) return '<p data-testid="cost-chart-empty">No configuration has a known cost (no reported cost and no price for its model).</p>';
  const maxCost = Math.max(...known.map(({ c }) => c.costUsd!)) || 1;
  const [left, top, width, height] = [70, 10, 420, 240];
  const x = (cost: number) => left + (cost / maxCost) * width;
  const y = (rate: number) => top + (1 - rate) * height;
  const points = known.map(
    ({ c, index }) =>
      `<g data-testid="cost-point"><circle cx="${x(c.costUsd!).toFixed(2)}" cy="${y(c.passRate).toFixed(2)}" r="6" fill="${COLORS[index % COLORS.length]}"><title>${escapeHtml(`${c.id}: ${formatUsd(c.costUsd)}, ${formatPercent(c.passRate)}`)}</title></circle><text x="${(x(c.costUsd!) + 9).toFixed(2)}" y="${(y(c.passRate) + 4).toFixed(2)}">${escapeHtml(c.id)}</text></g>`,
  );
  const axes = [
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${top + height}" stroke="#111"/>`,
    `<line x1="${left}" x2="${left + width}" y1="${top + height}" y2="${top + height}" stroke="#111"/>`,
    ...[0, 0.5, 1].map((t) => `<text x="${left - 6}" y="${y(t) + 4}" text-anchor="end">${t * 100}%</text>`),
    `<text x="${left}" y="${top + height + 18}" text-anchor="middle">$0</text>`,
    `<text x="${left + width}" y="${top + height + 18}" text-anchor="middle">${escapeHtml(formatUsd(maxCost))}</text>`,
    `<text x="${left + width / 2}" y="${top + height + 36}" text-anchor="middle">total cost (US$)</text>`,
  ];
  return `<svg data-testid="cost-chart" xmlns="http://www.w3.org/2000/svg" width="${left + width + 160}" height="${top + height + 46}" role="img" aria-label="Cost against pass rate">${axes.join('')}${points.join('')}</svg>`;
}

function table(headers: string[], rows: string[][]): string {
  return `<table><thead><tr>${headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((row) => `<tr>${row.map((value) => `<td>${escapeHtml(value)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

/**
 * The report as one self-contained HTML page: the pass rate of each configuration with its 95% interval as
 * whiskers, cost against pass rate, the tables of the Markdown summary and each trial's diff on demand. Charts are
 * inline SVG, styles inline, no script and no request: it opens offline, from a file or a CI artifact. Every text
 * from the eval (task names, diffs, messages) is escaped, so a diff holding markup stays text.
 */
export function evalReportHtml(report: EvalReport): string {
  const summary = table(
    ['configuration', 'pass rate', '95% CI', 'passed', 'errors', 'tasks solved', 'cost', 'cost / solved', 'time / solved'],
    report.configurations.map((c) => [c.id, formatPercent(c.passRate), `${formatPercent(c.interval.low)} – ${formatPercent(c.interval.high)}`, `${c.passes}/${c.judged}`, String(c.errors), `${c.tasksSolved}/${report.tasks.length}`, formatUsd(c.costUsd), formatUsd(c.costPerSolvedUsd), formatSeconds(c.wallMsPerSolved)]),
  );
  const comparisons = report.comparisons.length === 0 ? '' : `<h2>Paired comparisons</h2><p>Exact McNemar test on the (task, trial) pairs both configurations judged.</p>${table(['first', 'second', 'pairs', 'only first passed', 'only second passed', 'p-value'], report.comparisons.map((c) => [c.first, c.second, String(c.pairs), String(c.onlyFirst), String(c.onlySecond), formatPValue(c.pValue)]))}`;
  const trials = report.trials
    .map((t) => `<details><summary>${escapeHtml(`${t.task} · ${t.agent}/${t.mode} · trial ${t.trial}: ${t.status}${t.message ? ` — ${t.message}` : ''}`)}</summary><p>trace ${escapeHtml(t.traceId)} · ${escapeHtml(formatSeconds(t.wallMs))} · ${escapeHtml(formatUsd(t.costUsd))}</p><pre>${escapeHtml(t.diff || '(no change)')}</pre></details>`)
    .join('');
  const errors = report.taskErrors.length === 0 ? '' : `<h2>Tasks that could not be loaded</h2>${table(['task', 'field', 'message', 'file'], report.taskErrors.map((e) => [e.task, e.field, e.message, e.file]))}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escapeHtml(`Eval: ${report.name}`)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#111}table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}th:first-child,td:first-child{text-align:left}svg text{font:12px system-ui,sans-serif}pre{background:#f6f6f6;padding:8px;overflow:auto;max-height:320px}details{margin:2px 0}</style>
</head><body>
<h1>${escapeHtml(`Eval: ${report.name}`)}</h1>
<p>${escapeHtml(`${report.tasks.length} tasks × ${report.configurations.length} configurations × ${report.trialsPerTask} trials · ${report.createdAt}`)}</p>
<h2>Pass rate (95% Wilson interval)</h2>${passRateChart(report.configurations)}
<h2>Cost against pass rate</h2>${costChart(report.configurations)}
<h2>Summary</h2>${summary}${comparisons}${errors}
<h2>Trials</h2>${trials}
<details><summary>Markdown summary</summary><pre>${escapeHtml(evalReportMarkdown(report))}</pre></details>
</body></html>
`;
}
