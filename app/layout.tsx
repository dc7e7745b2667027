import type { Metadata } from "next";
import type { ReactNode } from "react";
import { connection } from "next/server";
import { Providers } from "@/components/providers";
import "./globals.css";

export const metadata: Metadata = {
  // Pages name themselves ("Chat — Toolgate"); a page without a title of its own is plain "Toolgate".
  title: { default: "Toolgate", template: "%s — Toolgate" },
  description: "Tool-policy gateway for AI chat agents",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request: Next.js puts the proxy's CSP nonce on its scripts only when dynamic.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
