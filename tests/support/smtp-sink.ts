// A real SMTP server (the smtp-server package) on 127.0.0.1 that keeps every message it accepts: the far end of the
// e-mail notifications. No TLS and no auth (a local test server); messages are decoded from quoted-printable so a
// test can read the links in them.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export type Mail = { from: string; to: string[]; raw: string; text: string; at: number };

function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

export async function startSmtpSink() {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const envelope = session.envelope;
        mails.push({
          from: envelope.mailFrom ? envelope.mailFrom.address : "",
          to: envelope.rcptTo.map((r) => r.address),
          raw,
          text: decodeQuotedPrintable(raw),
          at: Date.now(),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
