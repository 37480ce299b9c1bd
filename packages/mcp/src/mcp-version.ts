declare const __TROUPE_VERSION__: string | undefined;

/** Version of `@troupe/mcp` (injected at build; `0.0.0-source` when run from source). */
export const MCP_PACKAGE_VERSION: string = typeof __TROUPE_VERSION__ === 'string' ? __TROUPE_VERSION__ : '0.0.0-source';
