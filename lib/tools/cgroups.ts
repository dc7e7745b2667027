// A budget per member: every command of one workspace (one member, one uid) runs in that member's control group,
// so memory, CPU and process count are shared by all of that member's commands and capped together. The rlimits
// in sandbox.ts stay as the per-process fallback (and the only limit where no control group can be made).
// cgroup v1 (memory, cpu, pids hierarchies, as on these machines) or v2 where its controllers are delegated.
// Groups are made beneath the server's own group in each hierarchy, so they stay inside whatever limits the
// server itself runs under.
import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { runningAsRoot } from "./workspace-owner";

export type MemberBudget = { memoryBytes: number; processes: number; cpuPercent: number };
export type CgroupMechanism = { kind: "cgroup-v1" | "cgroup-v2" | "rlimits"; detail: string };

const ROOT = "/sys/fs/cgroup";
const PARENT = "toolgate";

type Layout =
  | { kind: "cgroup-v1"; dirs: { memory: string; cpu: string; pids: string } }
  | { kind: "cgroup-v2"; dir: string }
  | { kind: "rlimits"; why: string };

async function ownPaths(): Promise<Map<string, string>> {
  const text = await readFile("/proc/self/cgroup", "utf8").catch(() => "");
  const map = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [, controllers, where] = line.split(":");
    if (controllers === undefined || where === undefined) continue;
    for (const c of controllers.split(",")) map.set(c, where);
  }
  return map;
}

const writable = (p: string) =>
  access(p, 2).then(
    () => true,
    () => false,
  );

let layout: Promise<Layout> | undefined;
function detect(): Promise<Layout> {
  layout ??= (async (): Promise<Layout> => {
    if (!runningAsRoot()) return { kind: "rlimits", why: "the server does not run as root" };
    const own = await ownPaths();
    const v1 = { memory: "memory", cpu: "cpu", pids: "pids" } as const;
    const dirs = {} as Record<keyof typeof v1, string>;
    let v1ok = true;
    for (const [key, controller] of Object.entries(v1) as Array<[keyof typeof v1, string]>) {
      const mount = path.join(ROOT, controller);
      const base = path.join(mount, own.get(controller) ?? "/", PARENT);
      if (
        !(await writable(mount)) ||
        !(await access(path.join(mount, "cgroup.procs")).then(
          () => true,
          () => false,
        ))
      ) {
        v1ok = false;
        break;
      }
      dirs[key] = base;
    }
    if (v1ok) {
      try {
        for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
        return { kind: "cgroup-v1", dirs };
      } catch {
        // fall through to v2
      }
    }
    const controllers = await readFile(path.join(ROOT, "cgroup.controllers"), "utf8").catch(() => "");
    if (/\bmemory\b/.test(controllers) && /\bpids\b/.test(controllers)) {
      try {
        // A v2 group with controllers may hold no processes of its own: members' groups go one level below.
        const dir = path.join(ROOT, own.get("") ?? "/", PARENT);
        await mkdir(dir, { recursive: true });
        await writeFile(path.join(dir, "cgroup.subtree_control"), "+memory +pids +cpu");
        return { kind: "cgroup-v2", dir };
      } catch {
        // no delegation here
      }
    }
    return { kind: "rlimits", why: "no writable memory, cpu and pids control groups" };
  })();
  return layout;
}

export async function limitMechanism(): Promise<CgroupMechanism> {
  const l = await detect();
  if (l.kind === "cgroup-v1")
    return {
      kind: l.kind,
      detail: `a control group per member in cgroup v1 (memory, cpu, pids) under ${path.dirname(l.dirs.pids)}; rlimits per process as well`,
    };
  if (l.kind === "cgroup-v2")
    return {
      kind: l.kind,
      detail: `a control group per member in cgroup v2 (memory, cpu, pids) under ${l.dir}; rlimits per process as well`,
    };
  return { kind: "rlimits", detail: `rlimits per process only (${l.why})` };
}

const CPU_PERIOD_US = 100_000;

/**
 * The member's group in each hierarchy, made or updated with this budget; the paths a command's process writes its
 * pid to before it starts the sandbox (cgroupJoinArgv). Empty where only rlimits apply.
 */
export async function memberGroups(member: string, budget: MemberBudget): Promise<string[]> {
  const l = await detect();
  const name = `member-${member.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64)}`;
  const quota = String(Math.max(1000, Math.round((budget.cpuPercent / 100) * CPU_PERIOD_US)));
  try {
    if (l.kind === "cgroup-v1") {
      const memory = path.join(l.dirs.memory, name);
      const cpu = path.join(l.dirs.cpu, name);
      const pids = path.join(l.dirs.pids, name);
      for (const dir of [memory, cpu, pids]) await mkdir(dir, { recursive: true });
      await writeFile(path.join(memory, "memory.limit_in_bytes"), String(budget.memoryBytes));
      // Swap counts too where the kernel accounts it, or a hog would page out instead of stopping.
      await writeFile(path.join(memory, "memory.memsw.limit_in_bytes"), String(budget.memoryBytes)).catch(
        () => undefined,
      );
      await writeFile(path.join(cpu, "cpu.cfs_period_us"), String(CPU_PERIOD_US));
      await writeFile(path.join(cpu, "cpu.cfs_quota_us"), quota);
      await writeFile(path.join(pids, "pids.max"), String(budget.processes));
      return [memory, cpu, pids];
    }
    if (l.kind === "cgroup-v2") {
      const dir = path.join(l.dir, name);
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, "memory.max"), String(budget.memoryBytes));
      await writeFile(path.join(dir, "memory.swap.max"), "0").catch(() => undefined);
      await writeFile(path.join(dir, "cpu.max"), `${quota} ${CPU_PERIOD_US}`).catch(() => undefined);
      await writeFile(path.join(dir, "pids.max"), String(budget.processes));
      return [dir];
    }
  } catch {
    // A group that cannot be made or limited: the rlimits still hold.
  }
  return [];
}

/**
 * A root shell that moves itself into the member's groups, then becomes the command (so every process the command
 * starts is counted from its first instruction). It refuses to start the command when a group cannot be joined.
 */
export function cgroupJoinArgv(groups: readonly string[], argv: readonly string[]): string[] {
  if (groups.length === 0) return [...argv];
  const script =
    'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1/cgroup.procs" || exit 125; shift; n=$((n-1)); done; exec "$@"';
  return ["/bin/sh", "-c", script, "sh", String(groups.length), ...groups, ...argv];
}
