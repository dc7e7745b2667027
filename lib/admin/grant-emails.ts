import "server-only";
// Per-user mode grants (modeGrants.users) are stored keyed by user id, which an admin cannot read or type. The
// admin API shows and takes them keyed by e-mail: ids become e-mails on the way out, e-mails become ids on the way
// in, and an e-mail with no user is refused naming it (a grant to nobody would otherwise be saved silently).
// A key without "@" is kept as it is (an id written by a script, or a user since deleted, still shows up).
import { AppError } from "@/lib/errors";
import { findUserEmails, findUserIdsByEmails } from "@/lib/db/users";

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function userGrants(document: unknown): Record<string, unknown> | undefined {
  if (!isRecord(document) || !isRecord(document.modeGrants) || !isRecord(document.modeGrants.users)) return undefined;
  return document.modeGrants.users;
}

function withUserGrants<T>(document: T, users: Record<string, unknown>): T {
  const doc = document as Record<string, unknown>;
  return { ...doc, modeGrants: { ...(doc.modeGrants as Record<string, unknown>), users } } as T;
}

/** For the admin: modeGrants.users keyed by e-mail where the user exists. */
export async function grantsByEmail<T>(document: T): Promise<T> {
  const users = userGrants(document);
  if (!users || Object.keys(users).length === 0) return document;
  const emails = await findUserEmails({ userIds: Object.keys(users) });
  return withUserGrants(
    document,
    Object.fromEntries(Object.entries(users).map(([key, modes]) => [emails.get(key) ?? key, modes])),
  );
}

/** For storage: e-mail keys become user ids; an unknown e-mail is a 422 naming it. Other input passes unchanged. */
export async function grantsById<T>(document: T): Promise<T> {
  const users = userGrants(document);
  if (!users) return document;
  const emails = Object.keys(users).filter((key) => key.includes("@"));
  if (emails.length === 0) return document;
  const ids = await findUserIdsByEmails({ emails });
  const unknown = emails.filter((email) => !ids.has(email.toLowerCase()));
  if (unknown.length > 0) {
    throw new AppError(
      "VALIDATION_FAILED",
      `modeGrants.users: no user has the e-mail ${unknown.map((e) => `"${e}"`).join(", ")}`,
      {
        issues: unknown.map((email) => ({
          path: `modeGrants.users.${email}`,
          message: `no user has the e-mail "${email}"`,
        })),
      },
    );
  }
  const out: Record<string, unknown> = {};
  for (const [key, modes] of Object.entries(users)) {
    const id = key.includes("@") ? ids.get(key.toLowerCase())! : key;
    if (Object.hasOwn(out, id))
      throw new AppError("VALIDATION_FAILED", `modeGrants.users: "${key}" names a user listed twice`, {
        issues: [{ path: `modeGrants.users.${key}`, message: "the same user is listed twice" }],
      });
    out[id] = modes;
  }
  return withUserGrants(document, out);
}
