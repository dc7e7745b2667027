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

type Formatters = { local: Intl.DateTimeFormat; offset: Intl.DateTimeFormat };

/** Formatters per time zone, made once: a DateTimeFormat costs far more to build (ICU data) than to use. */
const formatters = new Map<string, Formatters>();
const FORMATTERS_KEPT = 64;

/** The zone's formatters; throws (RangeError) for a name that is not a time zone, and keeps nothing then. */
function formattersFor(timeZone: string): Formatters {
  let found = formatters.get(timeZone);
  if (!found) {
    found = {
      local: new Intl.DateTimeFormat("en-CA", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      }),
      offset: new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" }),
    };
    if (formatters.size >= FORMATTERS_KEPT) formatters.delete(formatters.keys().next().value!);
    formatters.set(timeZone, found);
  }
  return found;
}

function offsetOf(date: Date, format: Intl.DateTimeFormat): string {
  const name = format.formatToParts(date).find((p) => p.type === "timeZoneName")?.value;
  // "GMT" alone means a zero offset.
  const offset = name?.replace("GMT", "") ?? "";
  return offset === "" ? "+00:00" : offset;
}

function localIso(date: Date, format: Formatters): string {
  const parts = Object.fromEntries(format.local.formatToParts(date).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offsetOf(date, format.offset)}`;
}

export const currentTimeTool = defineBuiltinTool({
  name: "current_time",
  description: "Get the current date and time, optionally in a given IANA time zone.",
  group: "world",
  allowedModes: ["chat_safe", "coding"],
  inputSchema,
  execute: (input: z.infer<typeof inputSchema>) => {
    const timezone = input.timezone ?? "UTC";
    let format: Formatters;
    try {
      format = formattersFor(timezone);
    } catch {
      throw new AppError("INVALID_ARGUMENTS", `unknown time zone "${timezone}"; use an IANA name like "Europe/Paris"`);
    }
    const now = new Date();
    return { iso: localIso(now, format), utc: now.toISOString(), timezone, unixMs: now.getTime() };
  },
});
