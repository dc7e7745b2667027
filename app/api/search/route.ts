import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { handle, parseSearchParams } from "@/lib/http/respond";
import { SearchQuery } from "@/lib/http/schemas";
import { searchChats } from "@/lib/runs/search";

export const GET = handle(async (request: Request) => {
  const user = await requireUser();
  const { q } = parseSearchParams(request, SearchQuery);
  return NextResponse.json({ results: await searchChats({ user, query: q }) });
});
