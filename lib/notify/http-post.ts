// One outgoing POST of a notification: a deadline, no redirects followed (a 3xx could send the request's
// content somewhere the admin never configured), and an outcome the outbox can act on.
export type Attempt =
  { ok: true; status: number } | { ok: false; retry: boolean; status: number | null; error: string };

const TIMEOUT_MS = 10_000;

export async function postJson(url: string, body: string, headers: Record<string, string> = {}): Promise<Attempt> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "Toolgate-Notify/1", ...headers },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    return { ok: false, retry: true, status: null, error: `no answer (${cause})` };
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.ok) return { ok: true, status: response.status };
  // A refusal that another try cannot change (bad secret, gone endpoint) stops at once; overload and outages retry.
  const retry =
    response.status >= 500 ||
    response.status === 408 ||
    response.status === 429 ||
    (response.status >= 300 && response.status < 400);
  return { ok: false, retry, status: response.status, error: `HTTP ${response.status}` };
}
