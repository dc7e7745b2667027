import type { Metadata } from "next";
import Link from "next/link";
import { getCurrentUser } from "@/lib/auth/guards";
import { IdSchema } from "@/lib/http/approval-schemas";
import { linkPageView } from "@/lib/notify/link-decision";
import { LinkDecisionForm } from "@/components/approvals/link-decision-form";

export const dynamic = "force-dynamic";
// The token is in this page's address: never sent on as a Referer, never indexed.
export const metadata: Metadata = {
  title: { absolute: "Decide a request · Toolgate" },
  referrer: "no-referrer",
  robots: { index: false, follow: false },
};

/**
 * The page an e-mail's link opens. Opening it decides nothing (mail scanners follow links); the owner confirms
 * with a button, which POSTs with the link's token or the owner's session.
 */
export default async function DecidePage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ token?: string | string[] }>;
}) {
  const { id } = await params;
  const { token: raw } = await searchParams;
  const token = typeof raw === "string" && raw !== "" ? raw : undefined;
  const user = await getCurrentUser();
  const valid = IdSchema.safeParse(id);
  const page = valid.success
    ? await linkPageView({ approvalId: valid.data, token, user })
    : ({ state: "refused", problem: "no such request", signIn: false } as const);
  return (
    <main className="mx-auto w-full max-w-2xl space-y-4 p-4 sm:p-6">
      <h1 className="text-xl font-semibold">Decide a request</h1>
      {page.state === "refused" ? (
        <div
          role="alert"
          className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-50"
        >
          <p>This link cannot decide anything: {page.problem}.</p>
          {page.signIn ? (
            <p>
              <Link className="underline" href={`/login?next=${encodeURIComponent(`/decide/${id}`)}`}>
                Sign in
              </Link>{" "}
              to decide it from the app.
            </p>
          ) : null}
        </div>
      ) : (
        <LinkDecisionForm
          approval={page.approval}
          token={page.via === "token" ? token! : null}
          approverEmail={page.approverEmail}
          inbox={`/approvals?open=${encodeURIComponent(page.approval.id)}`}
        />
      )}
    </main>
  );
}
