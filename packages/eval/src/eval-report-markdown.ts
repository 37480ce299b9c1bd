import type { EvalReport } from './eval-report';
import { formatPercent, formatPValue, formatSeconds, formatUsd } from './eval-report-format';

/** A table cell: pipes and line breaks would break the row. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/**
 * The report as a Markdown summary (for a pull request, a CI job summary or a chat): one row per configuration
 * with its pass rate and 95% interval, pass@k, cost and time per solved task; the paired comparisons with their
 * p-values; the outcome of each task per configuration; and the tasks that could not be loaded.
 */
export function evalReportMarkdown(report: EvalReport): string {
  const lines: string[] = [];
  lines.push(`# Eval: ${cell(report.name)}`, '');
  lines.push(`${report.tasks.length} tasks × ${report.configurations.length} configurations × ${report.trialsPerTask} trials (${report.createdAt}).`, '');
  const ks = Array.from({ length: report.trialsPerTask }, (_, index) => String(index + 1));
  lines.push(`| configuration | pass rate | 95% CI | passed | errors | ${ks.map((k) => `pass@${k}`).join(' | ')} | cost | cost / solved | time / solved |`);
  lines.push(`| --- | ---: | ---: | ---: | ---: | ${ks.map(() => '---:').join(' | ')} | ---: | ---: | ---: |`);
  for (const c of report.configurations) {
    const passAt = ks.map((k) => (c.passAtK[k] === undefined ? '—' : formatPercent(c.passAtK[k])));
    lines.push(
      `| ${cell(c.id)} | ${formatPercent(c.passRate)} | ${formatPercent(c.interval.low)} – ${formatPercent(c.interval.high)} | ${c.passes}/${c.judged} | ${c.errors} | ${passAt.join(' | ')} | ${formatUsd(c.costUsd)} | ${formatUsd(c.costPerSolvedUsd)} | ${formatSeconds(c.wallMsPerSolved)} |`,
    );
  }
  if (report.comparisons.length > 0) {
    lines.push('', '## Paired comparisons', '', 'Exact McNemar test on the (task, trial) pairs both configurations judged.', '');
    lines.push('| first | second | pairs | only first passed | only second passed | p-value |', '| --- | --- | ---: | ---: | ---: | ---: |');
    for (const c of report.comparisons) lines.push(`| ${cell(c.first)} | ${cell(c.second)} | ${c.pairs} | ${c.onlyFirst} | ${c.onlySecond} | ${formatPValue(c.pValue)} |`);
  }
  lines.push('', '## Tasks', '', `| task | ${report.configurations.map((c) => cell(c.id)).join(' | ')} |`, `| --- | ${report.configurations.map(() => '---').join(' | ')} |`);
  for (const task of report.tasks) {
    const cells = report.configurations.map((c) => {
      const trials = report.trials.filter((t) => t.task === task && t.agent === c.agent && t.mode === c.mode);
      return trials.map((t) => (t.status === 'pass' ? '✅' : t.status === 'fail' ? '❌' : '⚠️')).join('');
    });
    lines.push(`| ${cell(task)} | ${cells.join(' | ')} |`);
  }
  if (report.taskErrors.length > 0) {
    lines.push('', '## Tasks that could not be loaded', '');
    for (const error of report.taskErrors) lines.push(`- **${cell(error.task)}**: \`${cell(error.field)}\` ${cell(error.message)} (${cell(error.file)})`);
  }
  return `${lines.join('\n')}\n`;
}
