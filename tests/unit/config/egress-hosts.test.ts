// EGRESS_HOSTS (issue 28): a bad entry stops start-up naming the variable; a good one parses to fixed targets.
import { describe, expect, it } from "vitest";
import { parseConfig, parseEgressHosts } from "@/lib/config";
import { configProblems } from "../../support/config-problems";

describe("EGRESS_HOSTS", () => {
  it("is empty by default and accepts name=address[:port] pairs", () => {
    expect(parseConfig({}).EGRESS_HOSTS).toBe("");
    expect(configProblems({ EGRESS_HOSTS: "registry.test=127.0.0.1:4873, mirror.test=10.0.0.5" })).toEqual([]);
    expect(parseEgressHosts("Registry.Test.=127.0.0.1:4873")?.get("registry.test")).toEqual({
      address: "127.0.0.1",
      port: 4873,
    });
  });

  it("refuses a name that is not a domain, an address that is not an IP, or a bad port, naming the variable", () => {
    for (const bad of [
      "registry.test",
      "registry.test=localhost",
      "*.test=127.0.0.1",
      "127.0.0.1=127.0.0.1",
      "a.test=127.0.0.1:0",
      "a.test=[::1]:70000",
    ]) {
      expect(configProblems({ EGRESS_HOSTS: bad }).join(" "), bad).toMatch(/EGRESS_HOSTS/);
    }
  });
});
