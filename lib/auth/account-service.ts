import "server-only";
// Changes that end a user's sessions: a new password (by the user, who proves the old one; it also lifts the
// must-change flag an admin-issued password sets) and deactivation (by an admin). Both increment the session version in the same write (lib/db/users.ts), and are audited.
import { AppError } from "@/lib/errors";
import { appendAudit } from "@/lib/db/audit";
import {
  changeUserPassword,
  countActiveAdmins,
  findUserByEmail,
  getUserWithRoles,
  setUserDisabled,
} from "@/lib/db/users";
import { announceAccountChange } from "@/lib/events/account-events";
import { hashPassword, verifyPasswordConstantWork } from "./password";
import { beginPasswordCheck, passwordCheckSucceeded } from "./throttle";
import { looksLikeRecoveryCode, proveWithRecoveryCode } from "./recovery-codes";

/**
 * Guessing the current password through this route has its own budget (per user), so a session's holder cannot
 * spend the account's sign-in budget, nor the sign-in guesses this one.
 */
export async function changeOwnPassword({
  user,
  currentPassword,
  newPassword,
}: {
  user: { id: string; email: string };
  address?: string;
  currentPassword: string;
  newPassword: string;
}) {
  // Keeping an admin-issued one-time password by "changing" it to itself would defeat the forced change.
  if (newPassword === currentPassword)
    throw new AppError("VALIDATION_FAILED", "the new password must differ from the current one", {
      issues: [{ path: ["newPassword"], message: "must differ from the current password" }],
    });
  // Sign-in takes whatever has a recovery code's shape for a code, never as a password: such a password would lock
  // its owner out (and an admin told to type a code here may paste one into the new password too).
  if (looksLikeRecoveryCode(newPassword)) {
    const issues = [{ path: ["newPassword"], message: "has a recovery code's shape: sign-in takes that as a code" }];
    throw new AppError("VALIDATION_FAILED", "the new password must not look like a recovery code", { issues });
  }
  await beginPasswordCheck(user.id);
  const row = await findUserByEmail({ email: user.email });
  // An admin who signed in with a recovery code (and must now choose a password) may not know the current one:
  // another of their unused codes proves it is them (only admins have codes). Else it is checked as the password.
  const byCode =
    looksLikeRecoveryCode(currentPassword) && row
      ? await proveWithRecoveryCode({ userId: row.id, code: currentPassword })
      : false;
  const proven = byCode || (await verifyPasswordConstantWork(currentPassword, row?.passwordHash));
  if (!proven) throw new AppError("FORBIDDEN", "the current password is wrong");
  await passwordCheckSucceeded(user.id);
  await changeUserPassword({ userId: user.id, passwordHash: await hashPassword(newPassword), mustChange: false });
  await appendAudit({
    action: "user.password_changed",
    actorId: user.id,
    decision: "allow",
    details: { userId: user.id },
  });
}

export async function setUserActive({
  actor,
  userId,
  active,
}: {
  actor: { id: string };
  userId: string;
  active: boolean;
}) {
  const target = await getUserWithRoles({ userId });
  if (!target) throw new AppError("NOT_FOUND", `there is no user ${userId}`);
  if (!active && userId === actor.id)
    throw new AppError("CONFLICT", "you cannot deactivate yourself; ask another admin to do it");
  if (!active && target.roles.includes("admin") && (await countActiveAdmins({ exceptUserId: userId })) === 0) {
    throw new AppError("CONFLICT", "this is the last active admin; make someone else admin first");
  }
  await setUserDisabled({ userId, disabled: !active });
  await appendAudit({
    action: active ? "user.reactivated" : "user.deactivated",
    actorId: actor.id,
    decision: "allow",
    details: { userId, email: target.email },
  });
  // Their open tabs learn at once (the event makes each stream re-check the session, which now fails).
  await announceAccountChange({ userId, change: active ? "reactivated" : "deactivated" });
  return { id: userId, active };
}
