import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { createAccount, listUsersAndTeams } from "@/lib/admin/users-service";
import { CreateUserBody } from "@/lib/admin/schemas";
import { handle, parseJsonBody } from "@/lib/http/respond";

export const GET = handle(async () => {
  await requireRole("admin");
  return NextResponse.json(await listUsersAndTeams());
});

/** A new account; the answer carries its one-time password, which is shown to the admin once and never again. */
export const POST = handle(async (request: Request) => {
  const actor = await requireRole("admin");
  const body = await parseJsonBody(request, CreateUserBody);
  return NextResponse.json(await createAccount({ actor, ...body }), {
    status: 201,
    headers: { "cache-control": "no-store" },
  });
});
