import { NextResponse } from "next/server";
import { protectedResourceMetadata } from "@/lib/gateway/base-url";

// RFC 9728's path-aware location for the resource /mcp: the same metadata.
export const dynamic = "force-dynamic";

export const GET = () =>
  NextResponse.json(protectedResourceMetadata(), {
    headers: { "cache-control": "public, max-age=300", "access-control-allow-origin": "*" },
  });
