import { z } from "zod";
import { AppError } from "@/lib/errors";
import { defineBuiltinTool } from "../define-tool";

const inputSchema = z.object({
  timezone: z
    .string()
    .min(1)
    .optional()
    .describe('IANA time zone name such as "Europe/Paris" or "America/New_York"; defaults to UTC.'),
});

function offsetOf(date: Date, timeZone: string): string {
  const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(date)
    .find((p) => p.type === "timeZoneName")?.value;
  // "GMT" alone means a zero offset.
  const offset = name?.replace("GMT", "") ?? "";
  return offset === "" ? "+00:00" : offset;
}

function localIso(date: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    })
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offsetOf(date, timeZone)}`;
}

export const currentTimeTool = defineBuiltinTool({
  name: "current_time",
  description: "Get the current date and time, optionally in a given IANA time zone.",
  group: "world",
  allowedModes: ["chat_safe", "coding"],
  inputSchema,
  execute: (input: z.infer<typeof inputSchema>) => {
    const timezone = input.timezone ?? "UTC";
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    } catch {
      throw new AppError("INVALID_ARGUMENTS", `unknown time zone "${timezone}"; use an IANA name like "Europe/Paris"`);
    }
    const now = new Date();
    return { iso: localIso(now, timezone), utc: now.toISOString(), timezone, unixMs: now.getTime() };
  },
});
