// Types of area-imports.mjs (plain JavaScript, so ESLint's config loads it on any Node).
export declare const AREAS: Record<string, readonly string[]>;
export declare const ENTRIES: Record<string, readonly string[]>;
export declare function areaOf(repoPath: string): string | undefined;
export declare function refusal(fromFile: string, toFile: string, typeOnly: boolean): string | undefined;
export declare const areaImportsPlugin: object;
