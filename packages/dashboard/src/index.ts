export { createDashboardHandler, type DashboardHandler, type DashboardHandlerOptions, type DashboardLooperControl } from './server/dashboard-handler';
export { serveDashboard, type ServeDashboardOptions, type ServedDashboard } from './server/serve-dashboard';
export { DashboardError } from './server/dashboard-error';
export { bundleDashboardClient } from './server/dashboard-client-bundle';
export { applyDashboardInput, isDashboardInput } from './state/dashboard-reducer';
export {
  createDashboardState,
  DEFAULT_DASHBOARD_LIMITS,
  type AgentUsageView,
  type AgentView,
  type BatchView,
  type BestOfNAttemptView,
  type BestOfNRunView,
  type ChannelMessageView,
  type ConversationView,
  type DashboardInput,
  type DashboardLimits,
  type DashboardSourceView,
  type DashboardState,
  type IterationView,
  type LooperView,
  type PendingView,
  type PipelineView,
  type QueueView,
  type RunView,
  type StepView,
  type TeamMessageView,
  type UsageView,
  type WorkspaceFileStatView,
  type WorkspaceView,
} from './state/dashboard-state';
