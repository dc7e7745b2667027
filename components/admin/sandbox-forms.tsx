"use client";
// The "Sandbox, approvals, MCP" tab: the policy forms that replace raw JSON for the sandbox and exec settings, ask and routing rules, MCP servers and
// subagents, one sub-tab each, with the draft's matrix effect above them. Every form rewrites the draft document,
// so the JSON tab and the matrix follow.
import { useState } from "react";
import type { CellFlip } from "@/lib/admin/matrix";
import type { PolicyDocument } from "@/lib/policy";
import { AskRoutingForm } from "./ask-routing-form";
import { DraftEffect } from "./draft-effect";
import { ExecSandboxForm } from "./exec-sandbox-form";
import { McpServerForm } from "./mcp-server-form";
import { SubagentsForm } from "./subagents-form";
import { Tabs } from "./tabs";

type Part = "exec" | "routing" | "mcp" | "subagents";
const PARTS: Array<{ id: Part; title: string }> = [
  { id: "exec", title: "Sandbox and exec" },
  { id: "routing", title: "Ask and approval routing" },
  { id: "mcp", title: "MCP servers" },
  { id: "subagents", title: "Subagents" },
];

export function SandboxForms({
  document,
  onChange,
  dirty,
  flips,
  updating,
}: {
  document: PolicyDocument;
  onChange: (next: PolicyDocument) => void;
  dirty: boolean;
  flips: readonly CellFlip[];
  updating: boolean;
}) {
  const [part, setPart] = useState<Part>("exec");
  return (
    <div className="space-y-3">
      <DraftEffect dirty={dirty} flips={flips} updating={updating} />
      <Tabs label="Policy part" tabs={PARTS} active={part} onChange={setPart}>
        {part === "exec" && <ExecSandboxForm document={document} onChange={onChange} />}
        {part === "routing" && <AskRoutingForm document={document} onChange={onChange} />}
        {part === "mcp" && <McpServerForm document={document} onChange={onChange} />}
        {part === "subagents" && <SubagentsForm document={document} onChange={onChange} />}
      </Tabs>
    </div>
  );
}
