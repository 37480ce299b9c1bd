import type { GitUrlRefusalRule, QueueFailureTexts, QueueFolderField } from '@troupe/queue-bullmq';

/** The job field that named a refused folder: its name stays (users find it in the job), a word says what it is. */
const FOLDER_FIELD: Readonly<Record<QueueFolderField, string>> = {
  workspace: '工作区（workspace）',
  'local gitUrl': '本地仓库（gitUrl）',
  workspaceRoot: '工作区根目录（workspaceRoot）',
};

const GIT_URL_RULE: Readonly<Record<GitUrlRefusalRule, (transport: string | undefined) => string>> = {
  'control-characters': () => '它包含控制字符',
  option: () => '它以 "-" 开头（这是选项，不是 URL）',
  'remote-helper': () => '不允许使用 git 远程助手（TRANSPORT::ADDRESS）；请使用 https:// 或 ssh:// URL',
  'host-option': () => '它的主机名以 "-" 开头',
  local: () => '这个 worker 不允许本地仓库（allowLocalGitUrls，troupe worker --allow-local-git）',
  transport: (transport) => `不允许使用 ${transport ?? '?'}:// 传输方式；请使用 https:// 或 ssh://`,
};

/**
 * Why a queued job failed, in Simplified Chinese: one text per failure code
 * of `@troupe/queue-bullmq` (its English texts are the library's own
 * `queueFailureMessages`). Job ids, queue names, paths, URLs and the
 * details git or an agent wrote stay as they are.
 */
export const simplifiedChineseQueueFailureTexts: QueueFailureTexts = {
  QUEUE_JOB_KIND_MISMATCH: ({ jobId, queue, kind, expected }) => `队列 "${queue}" 上的作业 ${jobId} 的类型是 ${JSON.stringify(kind)}，但这个队列的处理器只运行 "${expected}" 类型的作业`,
  QUEUE_PAYLOAD_INVALID: ({ jobId, kind, detail }) => `作业 ${jobId}: ${kind} 作业的内容无效: ${detail}`,
  QUEUE_JOB_CANCELED: () => '已被提交方取消',
  QUEUE_LEASE_LOST: ({ jobId }) => `作业 ${jobId}: 失去了运行租约（另一个 worker 接手了这个作业）`,
  QUEUE_GIT_URL_REFUSED: ({ url, rule, transport }) => `拒绝 gitUrl ${JSON.stringify(url)}: ${(GIT_URL_RULE[rule] ?? (() => rule))(transport)}`,
  QUEUE_GIT_REF_REFUSED: ({ ref }) => `拒绝 ref ${JSON.stringify(ref)}: 它以 "-" 开头`,
  QUEUE_GIT_CLONE_TIMEOUT: ({ url, timeoutMs }) => `git clone ${url} 超过了 ${timeoutMs} 毫秒，已停止`,
  QUEUE_GIT_CLONE_FAILED: ({ url, detail }) => `git clone ${url} 失败: ${detail}`,
  QUEUE_FOLDER_MISSING: ({ field, path }) => `${FOLDER_FIELD[field] ?? field} ${path} 在这个 worker 上不是文件夹`,
  QUEUE_FOLDER_NOT_ALLOWED: ({ field, shown, roots }) =>
    `${FOLDER_FIELD[field] ?? field} ${shown} 不在这个 worker 允许的文件夹内（${roots}）；请用 allowedRoots（troupe worker --allow-root DIR）允许它所在的文件夹`,
  QUEUE_LOOPER_REFUSED: ({ reply }) => `Looper 拒绝了任务: ${reply}`,
  QUEUE_LOOPER_NO_RESULT: () => 'Looper 结束了，但没有留下运行结果',
  QUEUE_STRATEGY_NOT_FOUND: ({ strategy }) => `这个 worker 上没有子智能体策略 "${strategy}"`,
  QUEUE_NOT_A_REPOSITORY: ({ path }) => `isolation "worktree" 需要 git 仓库，而工作区 ${path} 不是`,
  QUEUE_BASE_MISSING: ({ base, repo }) => `基准提交 ${base} 不在 worker 的副本 ${repo} 中；提交任务前请先推送它（或指定包含它的 ref）`,
  QUEUE_RESULT_TOO_LARGE: ({ jobId, bytes, limit, branch, repo }) =>
    `任务 ${jobId}：它的改动有 ${bytes} 字节，超过任务结果 ${limit} 字节的上限（maxResultBytes）；分支 ${branch} 保留在 worker 上的 ${repo} 中`,
};
