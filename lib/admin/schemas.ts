// Request bodies of the admin API, shared by the route handlers and the editor.
import { z } from "zod";
import { ROLES } from "@/lib/policy";

const id = z.string().trim().min(1).max(200);

/** A policy context without its mode (the matrix evaluates every mode). */
export const MatrixContextSchema = z
  .object({
    roles: z.array(z.enum(ROLES)).default(() => ["member" as const]),
    provider: id.optional(),
    model: id.optional(),
    agentId: id.optional(),
    teamIds: z.array(id).max(50).optional(),
    senderId: id.optional(),
    sandboxed: z.boolean().optional(),
    subagentDepth: z.number().int().min(0).max(10).optional(),
  })
  .strict();
export type MatrixContextInput = z.input<typeof MatrixContextSchema>;

export const SavePolicyBody = z
  .object({
    baseVersion: z.number().int().min(0),
    document: z.unknown(),
    comment: z.string().trim().max(500).optional(),
    /** Saving a plugin-only allow list needs this explicit confirmation (it removes every core tool). */
    confirmPluginOnly: z.boolean().optional(),
    /** "Save anyway": deny lists naming no known tool are saved once, and the override is audited. */
    confirmUnknownDenies: z.boolean().optional(),
  })
  .strict();

export const RollbackBody = z.object({ version: z.number().int().min(1) }).strict();

export const EffectiveBody = z
  .object({ context: MatrixContextSchema.prefault({}), document: z.unknown().optional() })
  .strict();

export const ReplayBody = z
  .object({
    document: z.unknown(),
    limit: z.number().int().min(1).max(500).default(50),
    provider: id.optional(),
    model: id.optional(),
  })
  .strict();

const optionalText = z
  .string()
  .trim()
  .max(200)
  .optional()
  .transform((v) => (v === "" ? undefined : v));
const optionalDate = z
  .string()
  .trim()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === "") return undefined;
    const date = new Date(v);
    // Years past 9999 are valid JavaScript dates that neither database can store or compare.
    if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1970 || date.getUTCFullYear() > 9999) {
      ctx.addIssue({
        code: "custom",
        message: "not a date between 1970 and 9999 (use ISO 8601, e.g. 2026-11-22T10:00:00Z)",
      });
      return z.NEVER;
    }
    return date;
  });

export const AuditQuery = z
  .object({
    user: optionalText,
    session: optionalText,
    tool: optionalText,
    decision: optionalText,
    layer: optionalText,
    action: optionalText,
    from: optionalDate,
    to: optionalDate,
    cursor: z.coerce.number().int().positive().max(2_147_483_647).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();

/** The same filters, for a download of every matching row (newest first, up to AUDIT_EXPORT_MAX_ROWS). */
export const AuditExportQuery = AuditQuery.omit({ cursor: true, limit: true })
  .extend({ format: z.enum(["csv", "json"]).default("csv") })
  .strict();

export const RoleChangeBody = z.object({ role: z.enum(ROLES), action: z.enum(["add", "remove"]) }).strict();

export const CreateTeamBody = z
  .object({
    // Imported chat groups keep their shape: WhatsApp "whatsapp:1203…@g.us", OpenClaw's default group "telegram:*".
    id: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[a-z0-9][a-z0-9:_.@*-]*$/, "lower-case letters, digits and : _ . @ * - only"),
    name: z.string().trim().min(1).max(200),
  })
  .strict();

export const TeamMemberBody = z.object({ userId: id, action: z.enum(["add", "remove"]) }).strict();

/** POST /api/policy/import: an OpenClaw config as written (JSON5), merged into `base` (the draft) or the saved document. */
export const ImportBody = z
  .object({
    format: z.literal("openclaw"),
    text: z.string().min(1, "the config text is empty").max(1_000_000),
    base: z.unknown().optional(),
  })
  .strict();
export type ImportBodyInput = z.infer<typeof ImportBody>;

/** POST /api/admin/users: a new account; the server makes its one-time password. */
export const CreateUserBody = z
  .object({
    email: z.string().trim().toLowerCase().max(320).pipe(z.email("not an e-mail address")),
    name: z
      .string()
      .trim()
      .max(200)
      .optional()
      .transform((v) => (v === "" ? undefined : v)),
    roles: z.array(z.enum(ROLES)).min(1, "give at least one role").max(ROLES.length),
  })
  .strict();
