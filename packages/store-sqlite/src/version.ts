declare const __TROUPE_VERSION__: string | undefined;

/** Version of `@troupe/store-sqlite` (injected at build; `0.0.0-source` when run from source). */
export const VERSION: string = typeof __TROUPE_VERSION__ === 'string' ? __TROUPE_VERSION__ : '0.0.0-source';
