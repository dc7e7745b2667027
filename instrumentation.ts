// Runs once when the server starts: an invalid configuration stops start-up with a message naming it;
// then the background worker (approval expiry, resuming paused runs) starts. Under the app's own server
// (scripts/server.mjs) it also hands over the lean event-stream handler, compiled here with the rest of the app.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    // Traces first (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set), so the worker's first turns are traced too.
    const { startTracing } = await import("@/lib/ops/tracing");
    if (process.env.NEXT_PHASE !== "phase-production-build") startTracing();
    const { startServer } = await import("@/lib/startup");
    await startServer();
    const { leanStreams } = await import("@/lib/http/lean-streams");
    (globalThis as { toolgateLeanStreams?: typeof leanStreams }).toolgateLeanStreams = leanStreams;
  }
}
