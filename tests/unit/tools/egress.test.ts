// Network by domain (issue 28) through the real exec tool: real bubblewrap, the real per-command proxy on its Unix
// socket, socat inside, curl and node as the member's programs, and local servers on loopback that EGRESS_HOSTS
// names. The egress services are an in-memory stand-in for the database-backed ones (tested in
// tests/integration/exec-egress.test.ts); what is under test here is the proxy, the sandbox wiring and the decision.
import { createServer, type Server } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from "node:net";
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execTool } from "@/lib/tools/builtin";
import type { EgressServices } from "@/lib/tools/context";
import { NetworkSettingsSchema, type AskedDomain } from "@/lib/policy/egress";
import { isPrivateAddress, startEgressProxy } from "@/lib/tools/egress-proxy";
import { execFile } from "node:child_process";
import { parseEgressHosts } from "@/lib/config";
import type { NetworkReport } from "@/lib/tools/egress-run";
import { buildSandboxArgv, probeSandbox } from "@/lib/tools/sandbox";
import { callOptions, makeContext, makeSandboxDirs } from "./support/tool-context";

const probe = await probeSandbox();
const ready = probe.ok && existsSync("/usr/bin/socat") && existsSync("/usr/bin/curl");

type Result = { exitCode: number | null; stdout: string; stderr: string; network?: NetworkReport };

function services(
  port: number,
  grants: string[] = [],
  extra: Partial<Parameters<typeof NetworkSettingsSchema.parse>[0]> = {},
) {
  const asked: Array<{ callId: string; asked: readonly AskedDomain[] }> = [];
  const egress: EgressServices = {
    settings: NetworkSettingsSchema.parse({
      allow: [
        { domain: "registry.test", ports: [port] },
        { domain: "*.writable.test", ports: [port], methods: ["GET", "POST"] },
        { domain: "localhost", ports: [port] },
      ],
      ...extra,
    }),
    hosts: parseEgressHosts(
      "registry.test=127.0.0.1,api.writable.test=127.0.0.1,unlisted.test=127.0.0.1,granted.test=127.0.0.1",
    )!,
    grantsForCommand: async () => ({ patterns: grants }),
    requestDomainApprovals: async (input) => {
      asked.push(input);
      return input.asked.map((a, i) => ({ domain: a.pattern, approvalId: `appr_${i}` }));
    },
  };
  return { egress, asked };
}

async function run(command: string, egress?: EgressServices): Promise<Result> {
  const { workspace } = await makeSandboxDirs();
  const context = makeContext(workspace, {
    sandboxed: true,
    sandbox: { limits: { cpuSeconds: 5, maxProcesses: 32 } },
    exec: { timeoutMs: 20_000, maxOutputBytes: 64 * 1024 },
    ...(egress ? { egress } : {}),
  });
  return (await execTool.execute({ command }, callOptions(context))) as Result;
}

describe("egress pieces", () => {
  it("refuses private, loopback, link-local and mapped addresses for names EGRESS_HOSTS does not map", () => {
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "::1",
      "fe80::1",
      "fd00::5",
      "::ffff:127.0.0.1",
      "0.0.0.0",
      "not-an-ip",
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ["93.184.216.34", "2606:2800:220:1::1", "::ffff:8.8.8.8"])
      expect(isPrivateAddress(a), a).toBe(false);
  });

  it("EGRESS_HOSTS rejects anything but name=address", () => {
    expect(parseEgressHosts("a.test=127.0.0.1, b.test=::1")?.get("b.test")).toEqual({ address: "::1" });
    expect(parseEgressHosts("a.test=127.0.0.1:4873,b.test=[::1]:80")).toEqual(
      new Map([
        ["a.test", { address: "127.0.0.1", port: 4873 }],
        ["b.test", { address: "::1", port: 80 }],
      ]),
    );
    for (const bad of [
      "a.test",
      "a.test=localhost",
      "*.a.test=127.0.0.1",
      "a.test=1.2.3.4=5",
      "a.test=127.0.0.1:0",
      "a.test=127.0.0.1:99999",
      "10.0.0.1=127.0.0.1",
    ])
      expect(parseEgressHosts(bad), bad).toBeNull();
  });

  it("the argv binds the socket at a fixed path, points the proxy variables at socat, and keeps --unshare-all", () => {
    const argv = buildSandboxArgv({
      command: "npm install",
      workspaceDir: "/srv/ws/u1",
      config: { egress: { socketPath: "/tmp/toolgate-egress-x/proxy.sock" } },
    });
    expect(argv).toContain("--unshare-all");
    const bind = argv.indexOf("/tmp/toolgate-egress-x/proxy.sock");
    expect(argv[bind - 1]).toBe("--bind");
    expect(argv[bind + 1]).toBe("/run/toolgate-egress.sock");
    expect(argv.join(" ")).toContain("HTTPS_PROXY http://127.0.0.1:3128");
    expect(argv.at(-1)).toBe("npm install");
  });
});

describe.skipIf(!ready || process.getuid?.() !== 0)("the proxy socket belongs to one command's uid", () => {
  // A host-execution command of another member runs on the host as that member's uid: it must not reach this
  // member's proxy (and so their grants) through the socket's path under /tmp.
  it("another uid cannot connect; the command's own uid can", async () => {
    const proxy = await startEgressProxy({
      decide: () => ({ action: "deny", reason: "test" }),
      hosts: new Map(),
      uploadBytes: 0,
      uid: 61_001,
    });
    const connectAs = (uid: number) =>
      new Promise<string>((resolve) => {
        const request = "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n";
        const child = execFile(
          "/usr/bin/setpriv",
          [
            `--reuid=${uid}`,
            `--regid=${uid}`,
            "--clear-groups",
            "/usr/bin/socat",
            "-t",
            "2",
            "-",
            `UNIX-CONNECT:${proxy.socketPath}`,
          ],
          { timeout: 10_000 },
          (error, stdout, stderr) => resolve(`${stdout}${stderr}`),
        );
        child.stdin?.end(request);
      });
    try {
      expect(await connectAs(61_002)).toMatch(/Permission denied/);
      expect(await connectAs(61_001)).toMatch(/^HTTP\/1\.1 403/);
    } finally {
      await proxy.close();
    }
  });
});

describe.skipIf(!ready)("sandboxed exec with an egress proxy", () => {
  let http: Server;
  let port = 0;
  const seen: Array<{ method: string; host: string; body: number }> = [];
  let tcp: TcpServer;
  let tcpPort = 0;
  let tcpHits = 0;
  let udp: UdpSocket;
  let udpPort = 0;
  let udpHits = 0;

  beforeAll(async () => {
    http = createServer((req, res) => {
      let body = 0;
      req.on("data", (c: Buffer) => (body += c.length));
      req.on("end", () => {
        seen.push({ method: req.method ?? "", host: req.headers.host ?? "", body });
        res.end(`answer for ${req.headers.host}`);
      });
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    port = (http.address() as AddressInfo).port;
    tcp = createTcpServer((s) => {
      tcpHits += 1;
      s.end("raw");
    });
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    tcpPort = (tcp.address() as AddressInfo).port;
    udp = createSocket("udp4");
    udp.on("message", () => (udpHits += 1));
    await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
    udpPort = udp.address().port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    udp.close();
  });

  it("a listed domain answers over plain HTTP (GET) and through CONNECT; the result lists it", async () => {
    const { egress } = services(port);
    const r = await run(
      `curl -sS -m 10 http://registry.test:${port}/pkg && echo && curl -sS -m 10 --proxytunnel http://registry.test:${port}/tunnel`,
      egress,
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`answer for registry.test:${port}\nanswer for registry.test:${port}`);
    expect(r.network?.reached).toEqual(["registry.test"]);
    expect(r.network?.approvals).toEqual([]);
  });

  it("plain HTTP to a listed domain is read-only unless its rule names more methods", async () => {
    const { egress } = services(port);
    const before = seen.length;
    const r = await run(
      `curl -s -o /dev/null -w '%{http_code} ' -m 10 -X POST -d x http://registry.test:${port}/up; curl -s -m 10 -X POST -d xyz http://api.writable.test:${port}/up`,
      egress,
    );
    expect(r.stdout).toBe(`403 answer for api.writable.test:${port}`);
    expect(seen.slice(before).map((s) => `${s.method} ${s.host}`)).toEqual([`POST api.writable.test:${port}`]);
  });

  it("an unlisted domain is refused at once and becomes one request naming it (asked once however often it is tried)", async () => {
    const { egress, asked } = services(port);
    const before = seen.length;
    const started = Date.now();
    const r = await run(
      `for i in 1 2 3; do curl -s -o /dev/null -w '%{http_code} ' -m 10 http://unlisted.test:${port}/; done; curl -s -m 10 --proxytunnel http://unlisted.test:${port}/ || echo tunnel-refused`,
      egress,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.stdout).toBe("403 403 403 tunnel-refused\n");
    expect(seen.length).toBe(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.asked.map((a) => a.pattern)).toEqual([`unlisted.test:${port}`]);
    expect(r.network?.approvals).toEqual([{ domain: `unlisted.test:${port}`, approvalId: "appr_0" }]);
    expect(r.network?.note).toMatch(/unlisted\.test:\d+ \(approval appr_0\).*not re-run/);
  });

  it("a member's grant opens the domain for that member's command only (each command has its own proxy)", async () => {
    const a = services(port, [`granted.test:${port}`]);
    const b = services(port, []);
    const [ra, rb] = await Promise.all([
      run(`curl -sS -m 10 http://granted.test:${port}/`, a.egress),
      run(`curl -s -o /dev/null -w '%{http_code}' -m 10 http://granted.test:${port}/`, b.egress),
    ]);
    expect(ra.stdout).toBe(`answer for granted.test:${port}`);
    expect(rb.stdout).toBe("403");
    expect(b.asked[0]?.asked.map((x) => x.pattern)).toEqual([`granted.test:${port}`]);
    expect(a.asked).toHaveLength(0);
  });

  it("addresses, private answers of listed names and unlisted ports are refused without asking", async () => {
    const { egress, asked } = services(port);
    // localhost is listed but not mapped by EGRESS_HOSTS: it resolves to loopback, which a name may never reach.
    const r = await run(
      [
        `http://127.0.0.1:${port}/`,
        `http://localhost:${port}/`,
        `http://registry.test:${tcpPort}/`,
        `http://[::1]:${port}/`,
      ]
        .map((u) => `curl -s -o /dev/null -w '%{http_code} ' -m 10 '${u}'`)
        .join("; "),
      egress,
    );
    expect(r.stdout).toBe("403 403 403 403 ");
    expect(asked).toHaveLength(0);
    expect(r.network?.refused.map((x) => x.reason).join("\n")).toMatch(
      /not a domain name[\s\S]*private address[\s\S]*port/,
    );
  });

  it("raw TCP, UDP and DNS get nothing: only the proxy leaves the sandbox", async () => {
    const { egress } = services(port);
    const script = [
      `const net=require("net"),dgram=require("dgram"),dns=require("dns");`,
      `const out=[];const done=()=>{if(out.length===3){console.log(out.sort().join(" "));process.exit(0)}};`,
      `const s=net.connect(${tcpPort},"127.0.0.1");s.on("connect",()=>{out.push("tcp-open");done()});s.on("error",()=>{out.push("tcp-refused");done()});`,
      `const u=dgram.createSocket("udp4");u.send("x",${udpPort},"127.0.0.1",(e)=>{out.push(e?"udp-error":"udp-sent");done()});`,
      `dns.lookup("registry.npmjs.org",(e)=>{out.push(e?"dns-failed":"dns-answered");done()});`,
      `setTimeout(()=>{console.log("timeout",out.join(" "));process.exit(1)},8000);`,
    ].join("");
    const r = await run(
      `/usr/bin/node -e '${script}'; for ns in 127.0.0.53 8.8.8.8; do getent hosts example.com >/dev/null || echo "no-dns-$ns"; done`,
      egress,
    );
    // UDP "sent" only means it left the socket: inside the sandbox's own namespace it reaches nothing of the host.
    expect(r.stdout).toMatch(/^dns-failed tcp-refused udp-(sent|error)\nno-dns-127.0.0.53\nno-dns-8.8.8.8\n$/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tcpHits).toBe(0);
    expect(udpHits).toBe(0);
  });

  it("the upload cap holds for the whole command, through CONNECT tunnels as well", async () => {
    const { egress } = services(port, [], { uploadBytes: 4096 });
    const before = seen.length;
    const r = await run(
      `head -c 20000 /dev/zero > big; curl -s -m 10 --proxytunnel -X PUT --data-binary @big http://api.writable.test:${port}/ || echo cut`,
      egress,
    );
    expect(r.stdout).toContain("cut");
    expect(seen.slice(before).filter((s) => s.body >= 20000)).toHaveLength(0);
    expect(r.network?.refused.some((x) => /upload cap/.test(x.reason))).toBe(true);
  });

  it("without egress services the sandbox has no network at all (no proxy variables, nothing listens)", async () => {
    const r = await run(
      `env | grep -i _proxy || echo no-proxy; curl -s -m 5 http://registry.test:${port}/ || echo unreachable`,
    );
    expect(r.stdout).toBe("no-proxy\nunreachable\n");
    expect(r.network).toBeUndefined();
  });
});
