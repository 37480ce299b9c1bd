import { TroupeError } from './troupe-error';

/**
 * The adapter types Troupe publishes, with the package and the call that
 * registers each: the hint an {@link AdapterNotFoundError} gives. Core
 * imports none of them; the list only names them.
 */
const PUBLISHED_ADAPTERS: readonly { types: readonly string[]; pkg: string; register: string }[] = [
  { types: ['claude'], pkg: '@troupe/adapter-claude', register: 'registerClaudeCodeAdapter()' },
  { types: ['codex'], pkg: '@troupe/adapter-codex', register: 'registerCodexAdapter()' },
  { types: ['gemini', 'gemini-acp'], pkg: '@troupe/adapter-gemini', register: 'registerGeminiCliAdapter() or registerGeminiAcpAdapter()' },
  { types: ['acp'], pkg: '@troupe/adapter-acp', register: 'registerAcpAdapter()' },
];

function hint(adapterType: string): string {
  const known = PUBLISHED_ADAPTERS.find((entry) => entry.types.includes(adapterType));
  if (known) return `"${adapterType}" comes from ${known.pkg}: install it and call its ${known.register}.`;
  const published = PUBLISHED_ADAPTERS.map((entry) => `${entry.types.join('/')} (${entry.pkg})`).join(', ');
  return (
    `Troupe's adapters are ${published}. ` +
    `For another CLI, register your own: registerAdapter({ type: '${adapterType}', create: (definition) => createGenericAdapter(definition) }) from @troupe/core.`
  );
}

/** No adapter is registered under the requested type. */
export class AdapterNotFoundError extends TroupeError {
  /** The type that was asked for. */
  readonly adapterType: string;
  /** The types that are registered, sorted. */
  readonly registered: readonly string[];

  constructor(adapterType: string, registered: readonly string[]) {
    const list = registered.length > 0 ? registered.join(', ') : '(none registered)';
    super('ADAPTER_NOT_FOUND', `No agent adapter registered for "${adapterType}". Registered adapters: ${list}. ${hint(adapterType)}`);
    this.name = 'AdapterNotFoundError';
    this.adapterType = adapterType;
    this.registered = registered;
  }
}
