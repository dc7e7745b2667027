// The gateway's names for upstream resources and prompts (lib/gateway/upstream-names.ts) and the server-level gate
// they pass under (isMcpServerUsable): names split back to exactly the server and upstream name they came from.
import { describe, expect, it } from "vitest";
import { namespaceContent, namespacedName, namespacedUri, splitName, splitUri } from "@/lib/gateway/upstream-names";
import { isMcpServerUsable, normalizeSystemToolSettings } from "@/lib/policy";

describe("upstream names", () => {
  it("round-trip, keeping the upstream name and URI exactly (case, '__', '/' and template braces)", () => {
    for (const name of ["simple-prompt", "Upper_Case", "a__b", "x/y"])
      expect(splitName(namespacedName("srv-1", name))).toEqual({ serverId: "srv-1", rest: name });
    for (const uri of [
      "demo://resource/static/document/a.md",
      "test://template/{id}/data",
      "file:///etc/x",
      "toolgate://other/x",
    ]) {
      expect(splitUri(namespacedUri("a_b", uri))).toEqual({ serverId: "a_b", rest: uri });
    }
  });

  it("refuse what names no server or nothing on it", () => {
    for (const name of ["simple-prompt", "mcp__", "mcp__srv__", "mcp____x", "MCP__srv__x"])
      expect(splitName(name), name).toBeNull();
    for (const uri of [
      "demo://x",
      "toolgate://",
      "toolgate://srv",
      "toolgate://srv/",
      "toolgate:///x",
      "TOOLGATE://srv/x",
    ])
      expect(splitUri(uri), uri).toBeNull();
  });

  it("namespaces resource links and embedded resources, and leaves other content alone", () => {
    expect(namespaceContent("s", { type: "resource_link", uri: "demo://a", name: "a" })).toMatchObject({
      uri: "toolgate://s/demo://a",
    });
    expect(namespaceContent("s", { type: "resource", resource: { uri: "demo://b", text: "t" } })).toMatchObject({
      resource: { uri: "toolgate://s/demo://b", text: "t" },
    });
    expect(namespaceContent("s", { type: "text", text: "demo://c" })).toEqual({ type: "text", text: "demo://c" });
  });
});

describe("isMcpServerUsable", () => {
  const settings = (mcp: { enabled?: boolean; allowedServers?: string[] }) =>
    normalizeSystemToolSettings({ mcp: { enabled: true, allowedServers: ["srv"], ...mcp } });
  const server = { id: "srv", allowedModes: ["chat_safe" as const], ownerOnly: false };
  const context = { settings: settings({}), mode: "chat_safe" as const, senderIsOwner: false };

  it("needs the allow-list, a mode of the server, and an owner for an owner-only server", () => {
    expect(isMcpServerUsable(server, context)).toBe(true);
    expect(isMcpServerUsable(server, { ...context, settings: settings({ enabled: false }) })).toBe(false);
    expect(isMcpServerUsable(server, { ...context, settings: settings({ allowedServers: ["other"] }) })).toBe(false);
    expect(isMcpServerUsable(server, { ...context, settings: settings({ allowedServers: [" SRV "] }) })).toBe(true);
    expect(isMcpServerUsable(server, { ...context, mode: "coding" })).toBe(false);
    expect(isMcpServerUsable({ ...server, allowedModes: [] }, context)).toBe(false);
    expect(isMcpServerUsable({ ...server, ownerOnly: true }, context)).toBe(false);
    expect(isMcpServerUsable({ ...server, ownerOnly: true }, { ...context, senderIsOwner: true })).toBe(true);
  });
});
