// A cookie-keeping HTTP client that signs in the way a script would: GET /api/auth/csrf, then POST the
// credentials form to /api/auth/callback/credentials.
export class HttpClient {
  private cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  private remember(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === "" || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", this.cookieHeader());
    const res = await fetch(`${this.baseUrl}${path}`, { ...init, headers, redirect: "manual" });
    this.remember(res);
    return res;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response JSON; a test names T or asserts the shape with expect
  async json<T = any>(
    path: string,
    init: Omit<RequestInit, "body"> & { body?: unknown } = {},
  ): Promise<{ status: number; body: T }> {
    const body =
      init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    const headers = new Headers(init.headers);
    // State changes must be JSON (the server answers 415 otherwise), with or without a body.
    const changes =
      body !== undefined || (init.method !== undefined && !["GET", "HEAD"].includes(init.method.toUpperCase()));
    if (changes && !headers.has("content-type")) headers.set("content-type", "application/json");
    const res = await this.fetch(path, { ...init, body, headers });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed as T };
  }

  async signIn(email: string, password: string): Promise<boolean> {
    const csrf = await this.json<{ csrfToken: string }>("/api/auth/csrf");
    const form = new URLSearchParams({
      email,
      password,
      csrfToken: csrf.body.csrfToken,
      callbackUrl: `${this.baseUrl}/chat`,
    });
    await this.fetch("/api/auth/callback/credentials", {
      method: "POST",
      body: form,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    const session = await this.json<{ user?: { id: string } } | null>("/api/auth/session");
    return Boolean(session.body && session.body.user?.id);
  }
}

export async function signedIn(baseUrl: string, email: string, password = "toolgate-demo"): Promise<HttpClient> {
  const client = new HttpClient(baseUrl);
  if (!(await client.signIn(email, password))) throw new Error(`could not sign in as ${email}`);
  return client;
}

/**
 * Signs in with an admin-issued one-time password and replaces it with `newPassword` (every API but the password
 * change refuses until then), then signs in again with the new one (the change ends every session).
 */
export async function signedInWithOwnPassword(
  baseUrl: string,
  email: string,
  oneTimePassword: string,
  newPassword = "toolgate-demo",
): Promise<HttpClient> {
  const first = await signedIn(baseUrl, email, oneTimePassword);
  const changed = await first.json("/api/me/password", {
    method: "POST",
    body: { currentPassword: oneTimePassword, newPassword },
  });
  if (changed.status !== 200)
    throw new Error(
      `could not replace the one-time password of ${email}: ${changed.status} ${JSON.stringify(changed.body)}`,
    );
  return signedIn(baseUrl, email, newPassword);
}
