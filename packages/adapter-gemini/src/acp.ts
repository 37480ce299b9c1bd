// `@troupe/adapter-gemini/acp`: Gemini CLI as an Agent Client Protocol agent (`gemini --acp`), through
// @troupe/adapter-acp (an optional peer dependency: install it to use this subpath).
export { createGeminiAcpAdapter, geminiAcpCapabilities, type GeminiAcpAdapter, type GeminiAcpOptions } from './gemini-acp-adapter';
export { createGeminiAcpAdapterPlugin, geminiAcpAdapterPlugin, registerGeminiAcpAdapter } from './gemini-acp-plugin';
