import type { Metadata } from "next";
import type { ReactNode } from "react";
import { cookies } from "next/headers";
import { connection } from "next/server";
import { THEME_COOKIE, themeFromCookie } from "@/lib/theme";
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
  // A chosen theme is a class on <html> from the first byte (no flash); "system" leaves it to the media query.
  const theme = themeFromCookie((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" {...(theme !== "system" ? { className: theme } : {})}>
      <body className="min-h-screen font-sans">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
