// Runs once when the server starts: an invalid configuration stops start-up with a message naming it.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { validateConfigOrExit } = await import("@/lib/startup");
    validateConfigOrExit();
  }
}
