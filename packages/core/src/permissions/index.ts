// The permission contract every adapter shares: the request, the answer, the policy, the hooks, the decision.
export { TOOL_KINDS, type CanUseTool, type ToolHooks, type ToolKind, type ToolUseDecision, type ToolUseOutcome, type ToolUseRequest } from './tool-use-request';
export { compileToolPolicy, matchToolPolicy, toolPolicySchema, type CompiledToolPolicy, type ToolPolicy, type ToolPolicyDefault, type ToolPolicyMatch } from './tool-policy';
export {
  decideToolUse,
  deferredWithoutStoreMessage,
  type DecideToolUseOptions,
  type ToolDecisionRecord,
  type ToolDecisionSource,
  type ToolPermissionOptions,
  type ToolUseVerdict,
} from './decide-tool-use';
export { hashToolInput } from './tool-input-hash';
export { createToolHookObserver, type ObservingToolHook, type ToolHookObserverOptions } from './tool-hook-observer';
export { loadToolPolicyFile } from './tool-policy-file';
export { permissionSettingsShape, resolvePermissionSettings } from './permission-settings';
export { permissionEventSchemas, toolDecisionRecordSchema, toolDecisionSourceSchema } from './permission-event-schemas';
export {
  ApprovalStore,
  checkApprovalId,
  DEFAULT_DECISION_TTL_MS,
  deferTo,
  type ApprovalAuditRecord,
  type ApprovalResolution,
  type ApprovalStoreOptions,
  type DecidedApproval,
  type PendingApproval,
  type WaitForDecisionOptions,
} from './approval-store';
