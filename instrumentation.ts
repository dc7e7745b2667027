// Runs once when the server starts: an invalid configuration stops start-up with a message naming it;
// then the background worker (approval expiry, resuming paused runs) starts.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startServer } = await import("@/lib/startup");
    await startServer();
  }
}
