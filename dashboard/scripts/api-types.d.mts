// Types of api-types.mjs, for the Vitest check that imports it.
export const SOURCE: string;
export const TARGET: string;
export const STALE_MESSAGE: string;
export function generateApiTypes(): Promise<string>;
export function isUpToDate(): Promise<boolean>;
