// Types for source-hash.mjs (plain ESM so `npm start` runs it before any TypeScript tooling is installed).
export const BUILD_HASH_FILE: string;
export const CLIENT_HASH_FILE: string;
export function buildInputs(root: string): string[];
export function hashFiles(root: string, files: string[], env?: Record<string, string | undefined>): string;
export function buildHash(root: string, env?: Record<string, string | undefined>): string;
export function clientHash(root: string): string;
export function buildIsCurrent(root: string, hash: string): boolean;
export function clientsAreCurrent(root: string, hash: string): boolean;
export function recordHash(root: string, file: string, hash: string): void;
