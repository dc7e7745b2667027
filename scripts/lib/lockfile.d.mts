// Types for lockfile.mjs (plain ESM so the lock scripts run before any TypeScript tooling is installed).
export type LockEntry = {
  version?: string;
  integrity?: string;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  license?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
export type Lock = { packages?: Record<string, LockEntry> };
export type MissingOptional = { from: string; name: string; spec: string; dev: boolean };
export type Manifest = {
  version?: string;
  os?: string | string[];
  cpu?: string | string[];
  libc?: string | string[];
  license?: string;
  dist?: { integrity?: string };
};
export function resolveLockPath(packages: Record<string, LockEntry>, fromPath: string, name: string): string | null;
export function findMissingOptional(lock: Lock): MissingOptional[];
export function platformFromName(name: string): { os?: string[]; cpu: string[]; libc?: string[] } | null;
export function lockEntryFor(
  item: MissingOptional,
  manifest: Manifest | null,
  platformManifest?: Manifest | null,
): LockEntry;
export function placeEntry(packages: Record<string, LockEntry>, item: { from: string; name: string }): string;
export function rootDrift(pkg: Record<string, unknown>, lock: Lock): string[];
export function sortPackages(packages: Record<string, LockEntry>): Record<string, LockEntry>;
