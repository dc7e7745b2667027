"use client";
// The "Agents, profiles, providers" tab: forms for the parts that were JSON only, with the change's effect on the
// matrix right above them (the same draft preview as under the matrix, for every context the draft touches).
import type { ReactNode } from "react";
import type { PolicyDocument, ToolMeta } from "@/lib/policy";
import { AgentsForm } from "./agents-form";
import { ProfilesForm } from "./profiles-form";
import { ProvidersForm } from "./providers-form";
import type { AdminTeam, AdminUser } from "./types";

export function PolicyForms({
  document,
  tools,
  teams,
  users,
  onChange,
  onShowAgent,
  effect,
}: {
  document: PolicyDocument;
  tools: readonly ToolMeta[];
  teams: readonly AdminTeam[];
  users: readonly AdminUser[];
  onChange: (next: PolicyDocument) => void;
  onShowAgent?: (agentId: string) => void;
  effect: ReactNode;
}) {
  return (
    <div className="space-y-4">
      {effect}
      <AgentsForm
        document={document}
        tools={tools}
        teams={teams}
        users={users}
        onChange={onChange}
        {...(onShowAgent ? { onShowAgent } : {})}
      />
      <div className="grid gap-4 xl:grid-cols-2">
        <ProfilesForm document={document} tools={tools} onChange={onChange} />
        <ProvidersForm document={document} tools={tools} onChange={onChange} />
      </div>
    </div>
  );
}
