// devhub area of @troupe/looper: the DevHub mediator agent and its Looper tools (seed 000 §3).
export { createDevHubAgent, type DevHubAgent, type DevHubOptions } from './devhub-agent';
export {
  createQueryLooperStateTool,
  createSendToLooperTool,
  sendToLooperParameters,
  type LooperToolOptions,
  type SendToLooperArgs,
} from './devhub-tools';
export { englishDevHubTexts, simplifiedChineseDevHubTexts, type DevHubTexts } from './devhub-texts';
export { MEDIATOR_SYSTEM_PROMPT } from './mediator-prompt';
export { createLooperSystem, type LooperSystem, type LooperSystemOptions } from './looper-system';
