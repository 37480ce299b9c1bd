declare const __TROUPE_VERSION__: string | undefined;

/** This package's version (injected at build time; `0.0.0-source` when run from source). */
export const OTEL_VERSION: string = typeof __TROUPE_VERSION__ === 'string' ? __TROUPE_VERSION__ : '0.0.0-source';
