// The system tool settings form (system-tool-policy-story.md, Settings → Tools): what it says, how limits read, and
// how an edit is saved. Rendered with React's server renderer: the markup a browser first receives.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SettingsControls, withSystemSettings } from "@/components/admin/settings-controls";
import {
  DEFAULT_POLICY_DOCUMENT,
  formatByteSize,
  parseByteSize,
  parsePolicyDocument,
  type PolicyDocument,
} from "@/lib/policy";

function documentOf(input: Parameters<typeof parsePolicyDocument>[0]): PolicyDocument {
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document;
}

const render = (document: PolicyDocument) =>
  renderToStaticMarkup(createElement(SettingsControls, { document, onChange: () => undefined }));
const text = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

describe("system tool settings form", () => {
  it("Y7 the fs switch is on by default and the byte limits read with units, not as bare numbers", () => {
    const html = render(DEFAULT_POLICY_DOCUMENT);
    expect(html).toMatch(/<input type="checkbox" aria-describedby="fs-effect" checked=""\/>File tools \(fs\) on/);
    expect(html).toContain('value="512 KiB"');
    expect(html).toContain('value="2 MiB"');
    expect(html).not.toMatch(/value="(524288|2097152)"/);
    expect(html).toContain('title="524,288 bytes"');
    const custom = render(documentOf({ system: { fs: { maxReadBytes: 1000, maxWriteBytes: 3 * 1024 ** 3 } } }));
    expect(custom).toContain('value="1000 B"');
    expect(custom).toContain('value="3 GiB"');
  });

  it("Y9 the form says that turning file tools off stops them in every chat while ask_user keeps working", () => {
    const shown = text(render(DEFAULT_POLICY_DOCUMENT));
    expect(shown).toContain(
      "Off: read, write, edit and apply_patch stop in every chat, for every agent and mode. ask_user keeps working.",
    );
    // The sentence is the checkbox's description for screen readers too.
    expect(render(DEFAULT_POLICY_DOCUMENT)).toMatch(/<p id="fs-effect"/);
  });

  it("Y8 a limit typed empty (or as nonsense) is refused with the reason; sizes with units are read exactly", () => {
    for (const bad of ["", "   ", "0", "-1", "1.5", "0.3 KiB", "512 KB", "2MB", "lots", "1e9"]) {
      expect(parseByteSize(bad), bad).toMatchObject({ ok: false, reason: expect.any(String) });
    }
    expect(parseByteSize("")).toEqual({ ok: false, reason: "a limit cannot be empty" });
    expect(parseByteSize("524288")).toEqual({ ok: true, bytes: 524288 });
    expect(parseByteSize("512 KiB")).toEqual({ ok: true, bytes: 512 * 1024 });
    expect(parseByteSize("2mib")).toEqual({ ok: true, bytes: 2 * 1024 * 1024 });
    expect(parseByteSize("1.5 MiB")).toEqual({ ok: true, bytes: 1572864 });
    expect(parseByteSize("7 B")).toEqual({ ok: true, bytes: 7 });
    // What the form shows reads back as the same number of bytes.
    for (const bytes of [1, 1000, 1024, 1536, 524288, 2097152, 5 * 1024 ** 3])
      expect(parseByteSize(formatByteSize(bytes))).toEqual({ ok: true, bytes });
  });

  it("Y13 an edit is saved through applySystemToolSettingsPatch: only the edited field changes, an unset one keeps its value", () => {
    const stored = documentOf({
      system: { fs: { maxReadBytes: 4096, maxWriteBytes: 8192 }, mcp: { enabled: true, allowedServers: ["github"] } },
    });
    const next = withSystemSettings(stored, { fs: { maxWriteBytes: 1024, maxReadBytes: undefined } });
    expect(next.system).toEqual({ ...stored.system, fs: { enabled: true, maxReadBytes: 4096, maxWriteBytes: 1024 } });
    expect(withSystemSettings(stored, { mcp: { enabled: false } }).system.mcp).toEqual({
      enabled: false,
      allowedServers: ["github"],
    });
    // The draft is a new document; the one it came from is untouched.
    expect(stored.system.fs.maxWriteBytes).toBe(8192);
    expect(next.tools).toEqual(stored.tools);
    expect(next.tools).not.toBe(stored.tools);
  });
});
