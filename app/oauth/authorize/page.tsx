import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { headers } from "next/headers";
import { ConsentForm } from "@/components/oauth/consent-form";
import { currentUserOrEnded } from "@/lib/auth/guards";
import { checkAuthorizationRequest } from "@/lib/oauth/server";

// The OAuth consent page (issue 30). A page like the others: a nonce CSP with frame-ancestors 'none' and
// X-Frame-Options DENY (no clickjacking), signed-in only. An unknown client or a redirect URI it did not register
// is shown here and sends nobody anywhere; other bad requests go back to the client's registered redirect URI.
export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Authorize an app" };

export default async function AuthorizePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const check = await checkAuthorizationRequest(params);
  if (!check.ok) {
    if (check.redirectTo) redirect(check.redirectTo);
    return (
      <main className="flex min-h-screen items-center justify-center p-4">
        <div className="w-full max-w-md rounded-xl border border-slate-200 p-6 dark:border-slate-800">
          <h1 className="text-xl font-semibold">This authorization request is not valid</h1>
          <p data-testid="oauth-error" className="mt-2 text-sm text-slate-700 dark:text-slate-300">
            {check.message}
          </p>
        </div>
      </main>
    );
  }
  const { user, ended } = await currentUserOrEnded();
  if (!user) {
    const wanted = (await headers()).get("x-toolgate-path") ?? "/chat";
    redirect(`/login?${new URLSearchParams({ next: wanted, ...(ended ? { ended: "1" } : {}) })}`);
  }
  const { request } = check;
  const forward = Object.fromEntries(
    Object.entries(params).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
  let redirectHost: string;
  try {
    redirectHost = new URL(request.redirect_uri).host || request.redirect_uri;
  } catch {
    redirectHost = request.redirect_uri;
  }
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-md space-y-4 rounded-xl border border-slate-200 p-6 shadow-sm dark:border-slate-800">
        <h1 className="text-xl font-semibold">Connect {request.clientName} to Toolgate?</h1>
        <p className="text-sm text-slate-700 dark:text-slate-300">
          <strong data-testid="oauth-client-name">{request.clientName}</strong> asks to use Toolgate&apos;s MCP gateway
          as <strong>{user.email}</strong>. It gets the tools your policy gives you in the mode you pick, and never
          more: your roles and grants are checked on every call, and calls that need an owner still wait for one.
        </p>
        <dl className="text-sm">
          <dt className="font-medium">Returns to</dt>
          <dd data-testid="oauth-redirect" className="break-all text-slate-700 dark:text-slate-300">
            {redirectHost}
          </dd>
          <dt className="mt-2 font-medium">Resource</dt>
          <dd className="break-all text-slate-700 dark:text-slate-300">{request.resourceUrl}</dd>
        </dl>
        <ConsentForm params={forward} />
      </div>
    </main>
  );
}
