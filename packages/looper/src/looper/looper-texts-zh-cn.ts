import { AUTO_PREFIX, diffstatLine, englishLooperTexts, oneLine, pendingLines, type LooperTexts } from './looper-texts';
import type { LooperRunOutcome, LooperWorkspace } from './looper-state';
import { truncateText } from './looper-step-result';

const OUTCOME: Record<LooperRunOutcome, string> = {
  terminated: '已完成',
  stopped: '已停止',
  'max-iterations': '达到轮次上限',
  failed: '失败',
  'budget-exceeded': '预算用尽',
};

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} 秒`;
}

function chineseWorkspaceResult(w: LooperWorkspace): string {
  const stat = w.result ? diffstatLine(w.result.diffstat, (count) => `${count} 个文件`) : '尚无结果';
  const merged = w.merged ? ` 已合并到 ${w.merged.into}（${w.merged.strategy}，${w.merged.commit.slice(0, 12)}）。` : '';
  const how = w.merged || !w.result || w.result.diffstat.files.length === 0
    ? ''
    : ` 合并方法: 发送 {"type":"merge"}（合并到 ${w.startBranch || '用 "into" 指定的分支'}；"strategy": merge、rebase 或 squash），或运行 git merge ${w.branch}。`;
  return `工作区分支 ${w.branch}: ${stat}。${merged}${how}`;
}

const FOLLOW_UP_MARKER_ZH = '\n\n【后续】';

/**
 * The Looper's texts in Simplified Chinese, with the phrases of seed 000's
 * acceptance steps: 启动循环任务, Iteration 1 开始, 状态: IDLE, 任务已加入队列,
 * 收到停止信号. Technical words users type or grep for (`[AUTO]`, IDLE,
 * RUNNING, the step names, health values, JSON commands) stay as they are.
 */
export const simplifiedChineseLooperTexts: LooperTexts = {
  locale: 'zh-CN',
  auto: {
    runStarted: (task, maxIterations) => `${AUTO_PREFIX} 启动循环任务: ${oneLine(task, 500)}（最多 ${maxIterations} 轮）`,
    resumed: (s) => `${AUTO_PREFIX} 已从检查点恢复: 第 ${s.iteration}/${s.maxIterations} 轮，步骤 ${s.step}。`,
    iterationStarted: (iteration, maxIterations, task) => `${AUTO_PREFIX} Iteration ${iteration} 开始（共 ${maxIterations} 轮）: ${oneLine(task, 300)}`,
    coder: (result) =>
      result.status === 'SUCCESS'
        ? `${AUTO_PREFIX} Coder 完成（${seconds(result.durationMs)}）: ${oneLine(result.output, 300) || '（无输出）'}`
        : `${AUTO_PREFIX} Coder 失败${result.timedOut ? '（超时）' : ''}（${seconds(result.durationMs)}）: ${oneLine(result.error?.message ?? result.output, 300)}`,
    review: (result) => {
      if (result.status === 'FAILED' || !result.report) {
        return `${AUTO_PREFIX} Review 失败${result.timedOut ? '（超时）' : ''}（${seconds(result.durationMs)}）: ${oneLine(result.error?.message ?? result.output, 300)}`;
      }
      const { health, findings, summary } = result.report;
      const detail = result.reportSource === 'fallback' ? '评审者没有给出结构化报告' : summary || findings[0]?.message || '无细节';
      return `${AUTO_PREFIX} Review 完成: 健康度 ${health}，${findings.length} 个问题 — ${oneLine(detail, 300)}`;
    },
    judgeFallback: (message) => `${AUTO_PREFIX} JUDGE 模型调用失败（${oneLine(message, 200)}），已改用规则策略。`,
    decision: (decision, consumed) =>
      decision.type === 'terminate'
        ? `${AUTO_PREFIX} JUDGE: 终止（terminate）— ${oneLine(decision.reason, 400)}`
        : `${AUTO_PREFIX} JUDGE: 继续（continue）— ${oneLine(decision.reason, 400)}${consumed > 0 ? `（并入 ${consumed} 个待处理任务）` : ''} 下一个任务: ${oneLine(decision.nextTask, 300)}`,
    finished: (outcome, iterations, reason) => `${AUTO_PREFIX} 循环结束（${OUTCOME[outcome]}，${outcome}），共 ${iterations} 轮: ${oneLine(reason, 400)}`,
  },
  status: (s) => {
    const lines = [`状态: ${s.state}`];
    if (s.state === 'RUNNING') {
      lines.push(`任务: ${oneLine(s.currentTask ?? '', 500)}`);
      lines.push(`轮次: ${s.iteration}/${s.maxIterations}（步骤: ${s.step}）`);
      if (s.stopRequested) lines.push(s.stopNow ? '已收到停止信号: 立即结束。' : '已收到停止信号: 当前轮次完成后结束。');
    } else if (s.lastRun) {
      lines.push(`上次运行: ${OUTCOME[s.lastRun.outcome]}（${s.lastRun.outcome}），共 ${s.lastRun.iterations} 轮 — ${oneLine(s.lastRun.reason, 300)}`);
    }
    if (s.workspace) lines.push(s.workspace.result ? chineseWorkspaceResult(s.workspace) : `工作区: ${s.workspace.path}（分支 ${s.workspace.branch}）`);
    if (s.last) {
      const review =
        s.last.review.status === 'SUCCESS' && s.last.review.report ? `${s.last.review.report.health}（${s.last.review.report.findings.length} 个问题）` : 'FAILED';
      const decision = s.last.decision ? `${s.last.decision.type} — ${oneLine(s.last.decision.reason, 200)}` : '无';
      lines.push(`上次结果（第 ${s.last.iteration} 轮）: Coder ${s.last.coder.status}；Review ${review}；JUDGE ${decision}`);
    }
    lines.push(`待处理任务（${s.pending.length}）:${s.pending.length === 0 ? ' 无' : ''}`);
    lines.push(...pendingLines(s.pending, (count) => `… 另有 ${count} 个（按加入顺序；JUDGE 会看到全部）`));
    return lines.join('\n');
  },
  reply: {
    invalid: (error) => `无效命令: ${error}。`,
    disposed: (looperId) => `Looper "${looperId}" 已释放，不再接受命令。`,
    startRefused: (task, iteration, maxIterations) =>
      `已拒绝: Looper 正在运行（RUNNING）"${truncateText(task, 200)}"（第 ${iteration}/${maxIterations} 轮）。请用 add_pending 把这个任务加入队列，或先停止。`,
    started: (task, maxIterations) => `启动循环任务: ${truncateText(task, 500)}（最多 ${maxIterations} 轮）。进度会推送到本频道。`,
    nothingToStop: '收到停止信号，但没有正在运行的循环: Looper 处于空闲状态（IDLE）。',
    stopAfterIteration: (iteration, step) =>
      `收到停止信号: 当前轮次完成后循环终止（第 ${iteration} 轮，当前步骤 ${step}；Review 和 JUDGE 仍会运行，状态会保存）。如需立即停止，请发送 {"type":"stop","now":true}。`,
    stopNow: (iteration, step) => `收到停止信号（立即停止）: 已取消第 ${iteration} 轮的 ${step} 步骤，循环结束。`,
    pendingQueued: (count, task, running) =>
      `任务已加入队列（待处理: ${count}）: ${truncateText(task, 300)}。${
        running ? '当前任务完成后，JUDGE 会把它并入下一个任务。' : 'Looper 处于空闲状态（IDLE）: 下次运行时 JUDGE 会考虑它（发送 start 开始运行）。'
      }`,
  },
  reason: {
    iterationLimit: (iteration, maxIterations, judgeReason) => `已达到轮次上限（${iteration}/${maxIterations}）；JUDGE 希望继续: ${judgeReason}`,
    stoppedAfterIteration: (iteration) => `应请求在第 ${iteration} 轮结束后停止（Review 和 JUDGE 已运行）。`,
    stoppedNow: (iteration, step) => `应请求在第 ${iteration} 轮的 ${step} 步骤中立即停止。`,
    budgetExceeded: (reason) => `已停止：本次运行的预算已用完（${reason}）。`,
    loopFailed: (message) => `循环意外失败: ${message}`,
  },
  workspace: {
    ready: (w) => `${AUTO_PREFIX} 在工作区 ${w.path} 的分支 ${w.branch} 上工作（基于 ${w.startBranch || '游离 HEAD'} 的 ${w.baseCommit.slice(0, 12)}）；父检出保持不变。`,
    result: chineseWorkspaceResult,
    escaped: (w, changed) => `${AUTO_PREFIX} 运行期间父检出 ${w.repo} 发生了变化（${oneLine(changed, 300)}）: 有代理在工作区 ${w.path} 之外写入。`,
    merging: (branch, into) => `正在将 ${branch} 合并到 ${into || '"into" 指定的分支'}…`,
    merged: (branch, into, strategy, commit) => `已将 ${branch} 合并到 ${into}（${strategy}）；${into} 现在位于 ${commit.slice(0, 12)}。`,
    conflicts: (branch, into, conflicts) =>
      `将 ${branch} 合并到 ${into} 时 ${conflicts.length} 个文件冲突: ${conflicts.map((c) => `${c.file}（${c.hunks} 处）`).join('、')}。未做任何更改；请在该分支上解决，或用 "into" 合并到其他分支。`,
    noWorkspace: '没有可合并的内容: 还没有运行在工作区中进行（用 isolation "worktree" 启动 Looper）。',
    running: '已拒绝: 有运行正在进行；请在其结束后（或先停止）再合并。',
    alreadyMerged: (branch, into) => `${branch} 已合并到 ${into}。`,
    failed: (branch, message) => `无法合并 ${branch}: ${message}`,
  },
  rules: {
    followUpMarker: FOLLOW_UP_MARKER_ZH,
    followUpHeading: (iteration, title) => `第 ${iteration} 轮 — ${title}:`,
    followUpTitle: { failed: '上一次尝试失败', problems: '评审发现需要修复的问题', improvements: '评审要求改进' },
    fixFailure: '找出原因，避免再次出错，并完成任务。',
    criticalWithoutFindings: (summary) => `评审报告的健康度为 critical: ${summary || '没有给出细节'}。`,
    moreFindings: (count) => `（另有 ${count} 项）`,
    limitReached: (iteration, maxIterations, left) => `已达到轮次上限（${iteration}/${maxIterations}）。${left.length > 0 ? `未完成: ${left.join('；')}。` : ''}`,
    leftCoderFailed: '最后一次 Coder 尝试失败',
    leftOpenFindings: (count) => `${count} 个未解决的问题（健康度 critical）`,
    leftPending: (count) => `${count} 条待处理消息仍在队列中`,
    cannotRun: (error) => `Coder 无法运行（${error}）；请修复环境后重新开始。`,
    fixableFailure: (timedOut, error) => `Coder 失败${timedOut ? '（超时）' : ''}，但看起来可以修复: ${truncateText(error, 200)}`,
    critical: (count) => `评审健康度为 critical（${count} 个严重问题）；先修复这些问题。`,
    pendingTask: (list, finishedTask) => `${list}\n\n背景: 这些任务接在已完成的任务之后: ${truncateText(finishedTask, 300)}`,
    pendingReason: (health, count) => `当前任务已完成${health === undefined ? '（评审不可用）' : `（健康度 ${health}）`}；开始处理 ${count} 条待处理消息。`,
    warningContinue: (count) => `评审健康度为 warning，有 ${count} 个问题；已开启 continueOnWarning。`,
    reviewFailed: (error) => `评审失败（${error}）；无法验证工作成果，且没有待处理任务。`,
    passedWithWarnings: (count) => `评审通过，有 ${count} 个警告，没有待处理消息。`,
    passed: '评审通过，健康度 normal，没有待处理消息。',
  },
  command: {
    usage: '发送纯文本即启动该任务，或发送 JSON: {"type":"start","task":"…"}、{"type":"stop"}（加 "now":true 立即停止）、{"type":"status"}、{"type":"add_pending","task":"…"}、{"type":"merge"}（可加 "into":"分支"、"strategy":"merge"|"rebase"|"squash"）。',
    notString: (type) => `命令必须是字符串，收到的是 ${type}`,
    empty: '命令为空',
    malformedJson: (detail) => `JSON 格式错误（${detail}）`,
    noType: 'JSON 命令缺少字符串字段 "type"',
    unknownType: (type, known) => `未知的命令类型 ${JSON.stringify(type)}；应为 ${known.join('、')} 之一`,
    badField: (type, field, problem, detail) => `"${type}" 命令: ${field ? `"${field}"` : '命令'}${problem === 'required' ? ' 为必填项' : ` 无效（${detail}）`}`,
    wrongType: (expected, value) => {
      const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
      const shown = type === 'object' || type === 'array' ? undefined : JSON.stringify(value);
      return `应为 ${expected}，实际为 ${type}${shown !== undefined && shown !== 'null' && shown.length <= 40 ? ` ${shown}` : ''}`;
    },
  },
};

/** @internal The follow-up markers of every built-in language (the rule policy cuts a task at any of them). */
export const FOLLOW_UP_MARKERS: readonly string[] = [englishLooperTexts.rules.followUpMarker, FOLLOW_UP_MARKER_ZH];
