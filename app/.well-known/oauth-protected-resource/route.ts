import { NextResponse } from "next/server";
import { protectedResourceMetadata } from "@/lib/gateway/base-url";

// RFC 9728 metadata for /mcp, from the configured base URL (never the Host header).
export const dynamic = "force-dynamic";

export const GET = () =>
  NextResponse.json(protectedResourceMetadata(), {
    headers: { "cache-control": "public, max-age=300", "access-control-allow-origin": "*" },
  });
